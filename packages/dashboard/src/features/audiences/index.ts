/** What other features use of audiences: the audience select of targeting forms, and the rule builder. */
export { AudiencePicker } from './audience-picker';
export { asGroup, countRules, RuleGroup, type RuleNode } from './rule-builder';
