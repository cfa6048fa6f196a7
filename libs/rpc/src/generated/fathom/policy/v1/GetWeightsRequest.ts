// Original file: proto/policy.proto


export interface GetWeightsRequest {
  'run_id'?: (string);
  'version'?: (number);
  /**
   * Largest data chunk the client wants; 0 for the server's default (1 MiB). Capped by the server.
   */
  'max_chunk_bytes'?: (number);
}

export interface GetWeightsRequest__Output {
  'run_id'?: (string);
  'version'?: (number);
  /**
   * Largest data chunk the client wants; 0 for the server's default (1 MiB). Capped by the server.
   */
  'max_chunk_bytes'?: (number);
}
