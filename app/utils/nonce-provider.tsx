import { createContext, useContext } from "react";

/** The per-request CSP nonce, set by entry.server and read by root.tsx for its script tags. */
const NonceContext = createContext<string>("");

export const NonceProvider = NonceContext.Provider;
export const useNonce = () => useContext(NonceContext);
