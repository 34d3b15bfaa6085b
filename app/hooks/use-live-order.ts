import { useNavigation, useRevalidator } from "@remix-run/react";
import { useEffect, useRef } from "react";

/**
 * While the order can still move, the page asks for it again every 10 seconds (only with JavaScript, only
 * while the tab is shown, never in the middle of a submission), so the other party's steps appear.
 */
export function useLiveOrder(active: boolean) {
  const revalidator = useRevalidator();
  const navigation = useNavigation();
  const latest = useRef({ revalidator, navigation });
  latest.current = { revalidator, navigation };
  useEffect(() => {
    if (!active) return;
    let timer: ReturnType<typeof setInterval> | undefined;
    const refresh = () => {
      const { revalidator, navigation } = latest.current;
      if (revalidator.state === "idle" && navigation.state === "idle") revalidator.revalidate();
    };
    const start = () => {
      if (timer === undefined && document.visibilityState === "visible") timer = setInterval(refresh, 10_000);
    };
    const stop = () => {
      clearInterval(timer);
      timer = undefined;
    };
    const onVisibility = () => {
      if (document.visibilityState === "visible") {
        refresh();
        start();
      } else stop();
    };
    start();
    document.addEventListener("visibilitychange", onVisibility);
    return () => {
      stop();
      document.removeEventListener("visibilitychange", onVisibility);
    };
  }, [active]);
}
