export { createApp, type App } from './app.ts';
export { runServer } from './run-server.ts';
export { requestContext } from './middleware/request-id.ts';
export { healthRoutes } from './routes/health.routes.ts';
