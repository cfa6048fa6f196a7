import { Controller, Get, Header } from '@nestjs/common';
import { docsPage } from './docs.page';
import { adminOpenApiDocument } from './openapi';

/** The API's own documentation: the OpenAPI document and a page that shows it. */
@Controller('docs')
export class DocsController {
  private readonly document = adminOpenApiDocument() as Parameters<typeof docsPage>[0];

  @Get('openapi.json')
  openApi() {
    return this.document;
  }

  @Get()
  @Header('content-type', 'text/html; charset=utf-8')
  docs(): string {
    return docsPage(this.document);
  }
}
