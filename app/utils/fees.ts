/**
 * The platform's fees (help centre and spec §1): sellers pay 20% of the package price; buyers pay a 5%
 * processing fee of at least UGX 1,000. Shown before anyone pays. Whole shillings, rounded half up.
 */
export const SELLER_FEE_RATE = 0.2;
export const BUYER_FEE_RATE = 0.05;
export const BUYER_FEE_MIN_UGX = 1_000;

export function buyerFee(priceUgx: number) {
  return Math.max(BUYER_FEE_MIN_UGX, Math.round(priceUgx * BUYER_FEE_RATE));
}

export function sellerFee(priceUgx: number) {
  return Math.round(priceUgx * SELLER_FEE_RATE);
}
