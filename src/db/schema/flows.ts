// Tables of the flows domain.
export {};
