import { runServer } from '@tidings/api';
import { createDashboard } from './app.ts';

runServer('dashboard', { port: (config) => config.dashboardPort, build: createDashboard });
