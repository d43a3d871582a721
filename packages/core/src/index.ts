export * from './decision-strategy.js';
export * from './error-code.js';
export * from './identity.js';
export * from './permission.js';
export * from './realm-scope.js';
export * from './token.js';
export * from './realm.js';
export * from './dpop.js';
