/**
 * How gRPC frames ride the simulated TCP connection: a request or response message carries its stream id and, for a
 * response, a status in the low bits of the message number.
 */
export const GrpcStatus = { ok: 0, unavailable: 1, internal: 2, refused: 3 } as const;
export type GrpcStatusId = (typeof GrpcStatus)[keyof typeof GrpcStatus];

export const responseMessage = (streamId: number, status: GrpcStatusId): number => streamId * 4 + status;
export const streamOf = (message: number): number => Math.floor(message / 4);
export const statusOf = (message: number): GrpcStatusId => (message % 4) as GrpcStatusId;
