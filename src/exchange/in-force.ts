// What is in force for an account is the account layer's rule (src/account/in-force.ts); the model
// exchange reads it from there.
export { familyInForce } from '../account/in-force.js';
export type { AccountInForce, FamilyActivity, FamilyInForce } from '../account/in-force.js';
