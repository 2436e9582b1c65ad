/** core/mcp: the assistant surface (MCP), tools over the same verbs as `/v1`. */
export { mcpRoutes } from './routes.js';
