import { Command } from 'commander';
import { askCommand } from './ask.command';
import { baselineCommand } from './baseline.command';
import { dataCommand } from './data.command';
import { dbCommand } from './db.command';
import { evalCommand } from './eval.command';
import { modelCommand } from './model.command';
import { sftDataCommand } from './sft-data.command';
import { sftCommand } from './sft.command';
import { replayCommand, trainCommand } from './train.command';

const program = new Command('fathom')
  .description('FATHOM: train small language models to act as Recursive Language Models over long documents.')
  .showHelpAfterError()
  .addCommand(dataCommand())
  .addCommand(sftDataCommand())
  .addCommand(sftCommand())
  .addCommand(dbCommand())
  .addCommand(modelCommand())
  .addCommand(evalCommand())
  .addCommand(trainCommand())
  .addCommand(replayCommand())
  .addCommand(baselineCommand())
  .addCommand(askCommand());

program.parseAsync(process.argv).catch((error: unknown) => {
  console.error(`fathom: ${error instanceof Error ? error.message : String(error)}`);
  process.exitCode = 1;
});
