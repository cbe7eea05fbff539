// Tables of the pricing domain.
export {};
