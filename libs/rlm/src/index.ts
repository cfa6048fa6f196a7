export {
  RUNNABLE_LANGUAGES,
  findAnswer,
  findCodeBlocks,
  parseCompletion,
  type CodeBlock,
  type ParsedCompletion,
} from './parse';
export { applyTurn, type TurnOutcome } from './turn';
export {
  DEFAULT_PROMPT_STYLE,
  IM_END,
  IM_START,
  renderCompletion,
  renderConversation,
  renderObservation,
  renderPrompt,
  renderSubcallPrompt,
  segmentsText,
  type PromptStyle,
  type PromptTask,
  type Segment,
} from './prompt';
export { preflightPromptShapes, PromptDriftError } from './preflight';
