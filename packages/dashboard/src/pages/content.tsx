export { default } from './soon';
