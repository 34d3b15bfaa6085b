// react-dom 18 ships the web-streams renderer as "react-dom/server.browser"; @types/react-dom declares its
// API under "react-dom/server" only.
declare module "react-dom/server.browser" {
  export { renderToReadableStream } from "react-dom/server";
}
