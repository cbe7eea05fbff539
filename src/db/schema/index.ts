// Every domain's tables, one file per domain. Add new files here.
export * from './platform.js';
