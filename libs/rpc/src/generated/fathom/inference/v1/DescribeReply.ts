// Original file: proto/inference.proto


export interface DescribeReply {
  /**
   * The checkpoint answers ReadSpan: it has a span head (fathom_reader) or a paired reader.
   */
  'span_reader'?: (boolean);
}

export interface DescribeReply__Output {
  /**
   * The checkpoint answers ReadSpan: it has a span head (fathom_reader) or a paired reader.
   */
  'span_reader'?: (boolean);
}
