// Tables of the analytics domain.
export {};
