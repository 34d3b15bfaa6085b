/**
 * GSM 03.38, the 7-bit alphabet of one 160-character SMS: one character outside it makes the whole text UCS-2
 * (70 characters a part). Shared by the SMS words' unit test and the alerts' integration tests.
 */

// The basic set; the extension characters (^{}\[~]|€) count twice.
const GSM7_BASIC = "@£$¥èéùìòÇ\nØø\rÅåΔ_ΦΓΛΩΠΨΣΘΞÆæßÉ !\"#¤%&'()*+,-./0123456789:;<=>?¡ABCDEFGHIJKLMNOPQRSTUVWXYZÄÖÑÜ\u00a7¿abcdefghijklmnopqrstuvwxyzäöñüà";
const GSM7_EXTENDED = "^{}\\[~]|€\f";

/** Its length in GSM-7 septets, or null when a character is outside GSM-7. */
export function gsm7Length(text: string): number | null {
  let length = 0;
  for (const ch of text) {
    if (GSM7_BASIC.includes(ch)) length += 1;
    else if (GSM7_EXTENDED.includes(ch)) length += 2;
    else return null;
  }
  return length;
}
