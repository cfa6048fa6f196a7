import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { describe, expect, it } from 'vitest';
import { freePort } from './service.process';

describe('freePort', () => {
  it('hands out ports a service can bind, outside the range the kernel gives to source ports and listen(0)', async () => {
    const [first, last] = readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8')
      .trim()
      .split(/\s+/)
      .map(Number);
    for (let i = 0; i < 50; i++) {
      const port = await freePort();
      expect(port >= 20_000 && (port < first! || port > last!), `port ${port} vs range ${first}-${last}`).toBe(true);
      const server = createServer();
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        server.listen(port, '127.0.0.1', resolve);
      });
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
