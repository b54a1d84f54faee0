// The two Node types index.d.ts names, for the type check in CI where
// @types/node is not installed (Debian has no package of it). Users of the
// client install @types/node, which declares these fully.
declare module "node:child_process" {
  export interface ChildProcess { pid?: number }
}
declare namespace NodeJS {
  interface ProcessEnv { [key: string]: string | undefined }
}
