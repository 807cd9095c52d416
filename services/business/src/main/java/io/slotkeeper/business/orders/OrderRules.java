package io.slotkeeper.business.orders;

import io.slotkeeper.commands.InvalidCommandException;
import io.slotkeeper.events.orders.OrderCommand.PlaceOrder;
import io.slotkeeper.events.orders.OrderLine;
import java.util.Currency;
import java.util.LinkedHashMap;
import java.util.Map;

/** What a valid order is; shared by the aggregate and by the APIs' early validation. */
public final class OrderRules {

  public static final int MAX_LINES = 200;
  public static final int MAX_QTY = 1_000_000;
  public static final long MAX_UNIT_PRICE_CENTS = 1_000_000_000_000L;
  public static final int MAX_ID_LENGTH = 128;

  private OrderRules() {}

  /** Throws {@link InvalidCommandException} naming every offending field. */
  public static void validate(PlaceOrder cmd) {
    Map<String, String> errors = new LinkedHashMap<>();
    checkId(errors, "orderId", cmd.orderId());
    checkId(errors, "customerId", cmd.customerId());
    if (!isIso4217(cmd.currency())) {
      errors.put("currency", "must be an ISO 4217 code such as CNY");
    }
    if (cmd.items() == null || cmd.items().isEmpty()) {
      errors.put("items", "must contain at least one line");
    } else if (cmd.items().size() > MAX_LINES) {
      errors.put("items", "at most " + MAX_LINES + " lines");
    } else {
      for (int i = 0; i < cmd.items().size(); i++) {
        OrderLine line = cmd.items().get(i);
        String at = "items[" + i + "]";
        if (line == null) {
          errors.put(at, "must not be null");
          continue;
        }
        checkId(errors, at + ".sku", line.sku());
        if (line.qty() <= 0 || line.qty() > MAX_QTY) {
          errors.put(at + ".qty", "must be between 1 and " + MAX_QTY);
        }
        if (line.unitPriceCents() < 0 || line.unitPriceCents() > MAX_UNIT_PRICE_CENTS) {
          errors.put(at + ".unitPriceCents", "must be between 0 and " + MAX_UNIT_PRICE_CENTS);
        }
      }
    }
    if (errors.isEmpty()) {
      try {
        amount(cmd);
      } catch (ArithmeticException e) {
        errors.put("items", "the order total overflows");
      }
    }
    if (!errors.isEmpty()) {
      throw new InvalidCommandException("the order is invalid", errors);
    }
  }

  /** The order total; {@link ArithmeticException} on overflow. */
  public static long amount(PlaceOrder cmd) {
    long total = 0;
    for (OrderLine line : cmd.items()) {
      total = Math.addExact(total, line.totalCents());
    }
    return total;
  }

  static void checkId(Map<String, String> errors, String field, String value) {
    if (value == null || value.isBlank()) {
      errors.put(field, "is required");
    } else if (value.length() > MAX_ID_LENGTH) {
      errors.put(field, "at most " + MAX_ID_LENGTH + " characters");
    } else if (!value.chars().allMatch(c -> c > 0x20 && c < 0x7f)) {
      errors.put(field, "printable ASCII without spaces only");
    }
  }

  private static boolean isIso4217(String code) {
    // three upper-case ASCII letters (checked by hand: a regex here was compiled per order), then
    // a code the JDK knows
    if (code == null || code.length() != 3) {
      return false;
    }
    for (int i = 0; i < 3; i++) {
      char c = code.charAt(i);
      if (c < 'A' || c > 'Z') {
        return false;
      }
    }
    try {
      Currency.getInstance(code);
      return true;
    } catch (IllegalArgumentException e) {
      return false;
    }
  }
}
