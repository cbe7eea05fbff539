/** Until every feature imports the kit by its index: the old name of the kit's one file. */
export * from './index';
