// What other features use of the delivery feature: the explanation of what one end user is shown,
// and the editor path of the items it lists.
export { DeliveryExplanation, editorPath } from './explanation';
