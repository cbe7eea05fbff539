// Tables of the translations domain.
export {};
