// Tables of the audiences domain.
export {};
