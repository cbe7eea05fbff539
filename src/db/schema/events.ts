// Tables of the events domain.
export {};
