// Original file: proto/env.proto


export interface CloseReply {
  'episode_id'?: (string);
  'closed'?: (boolean);
}

export interface CloseReply__Output {
  'episode_id'?: (string);
  'closed'?: (boolean);
}
