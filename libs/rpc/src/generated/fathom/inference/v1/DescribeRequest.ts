// Original file: proto/inference.proto


export interface DescribeRequest {
}

export interface DescribeRequest__Output {
}
