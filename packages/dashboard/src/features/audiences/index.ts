/** What other features use of audiences: the audience select of targeting forms, and the rule builder. */
export { AudiencePicker } from './audience-picker';
export { RuleGroup } from './rule-group';
export { asGroup, countRules, type RuleNode } from './rule-tree';
