'use strict';
// The entry of a template-rendering worker thread. A worker starts without the TypeScript loader of the thread that
// made it (tsx's, or a test runner's transform), so it loads the task through tsx's require hook.
require('tsx/cjs/api').register();
module.exports = require('./render-task.ts');
