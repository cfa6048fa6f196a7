// Original file: proto/env.proto


export interface EpisodeRef {
  'episode_id'?: (string);
}

export interface EpisodeRef__Output {
  'episode_id'?: (string);
}
