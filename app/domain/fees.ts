/**
 * The platform's fees (docs/product.md, the help centre): sellers pay 20% of the package price; buyers pay a 5%
 * processing fee of at least UGX 1,000. Both are configurable (BUYER_FEE_PERCENT, BUYER_FEE_MIN_UGX,
 * SELLER_FEE_PERCENT) and shown before anyone pays; an order keeps the fees it was placed with. Whole
 * shillings, rounded half up.
 */
export type Fees = { buyerPercent: number; buyerMinUgx: number; sellerPercent: number };

export const DEFAULT_FEES: Fees = { buyerPercent: 5, buyerMinUgx: 1_000, sellerPercent: 20 };

export function feesFromEnv(env: { BUYER_FEE_PERCENT: number; BUYER_FEE_MIN_UGX: number; SELLER_FEE_PERCENT: number }): Fees {
  return { buyerPercent: env.BUYER_FEE_PERCENT, buyerMinUgx: env.BUYER_FEE_MIN_UGX, sellerPercent: env.SELLER_FEE_PERCENT };
}

export function buyerFee(priceUgx: number, fees: Fees = DEFAULT_FEES) {
  return Math.max(fees.buyerMinUgx, Math.round((priceUgx * fees.buyerPercent) / 100));
}

export function sellerFee(priceUgx: number, fees: Fees = DEFAULT_FEES) {
  return Math.min(priceUgx, Math.round((priceUgx * fees.sellerPercent) / 100));
}

/** What the seller earns from an order: its price less the seller fee it was placed with. */
export function sellerNetUgx(priceUgx: number, sellerFeeUgx: number) {
  return priceUgx - sellerFeeUgx;
}

/**
 * How a dispute split shares an order's money (ADR 044): `refundUgx` of the price goes back to the buyer and
 * the rest is released to the seller. Each fee follows the part of the price it belongs to, at the order's own
 * fees: the seller fee is charged on the released part only, and the buyer's fee is kept by the platform in the
 * same share and refunded for the rest (rounded half up). A refund of 0 is a release, of the whole price a
 * refund, to the shilling.
 */
export function splitShares(order: { priceUgx: number; buyerFeeUgx: number; sellerFeeUgx: number }, refundUgx: number) {
  const releaseUgx = order.priceUgx - refundUgx;
  const share = (feeUgx: number) => (order.priceUgx === 0 ? 0 : Math.round((feeUgx * releaseUgx) / order.priceUgx));
  const sellerFeeUgx = share(order.sellerFeeUgx);
  const buyerFeeKeptUgx = share(order.buyerFeeUgx);
  return {
    refundUgx,
    releaseUgx,
    sellerFeeUgx,
    /** What the seller earns: the released part less its fee. */
    sellerNetUgx: sellerNetUgx(releaseUgx, sellerFeeUgx),
    buyerFeeKeptUgx,
    buyerFeeRefundUgx: order.buyerFeeUgx - buyerFeeKeptUgx,
    /** What goes back to the buyer: the refunded part and the unused share of their fee. */
    buyerTotalUgx: refundUgx + order.buyerFeeUgx - buyerFeeKeptUgx,
  };
}
