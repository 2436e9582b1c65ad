/// <reference types="vite/client" />

interface ImportMetaEnv {
  /** The WebSocket API's URL on AWS (wss://<id>.execute-api.<region>.amazonaws.com/<stage>), set by stacks/ at build time; unset locally. */
  readonly VITE_STREAM_URL?: string;
}
