// Original file: proto/env.proto


export interface SessionControl {
}

export interface SessionControl__Output {
}
