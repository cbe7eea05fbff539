// What other features use of the delivery feature: the explanation of what one end user is shown.
export { DeliveryExplanation } from './explanation';
