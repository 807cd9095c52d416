package io.slotkeeper.idempotency;

/**
 * An Idempotency-Key as the store keeps it: the key a caller sent, within the caller's principal
 * (who the token says the caller is). Two principals' equal keys are two keys: neither sees the
 * other's saved answer. The key is held without the spaces and tabs around it ({@link
 * IdempotencyKeys#normalize}), whichever protocol carried it; {@link IdempotencyKeys#problemWith}
 * says whether it is acceptable.
 */
public record IdempotencyKey(String principal, String value) {

  public IdempotencyKey {
    if (principal == null || principal.isEmpty()) {
      throw new IllegalArgumentException("an Idempotency-Key needs a principal");
    }
    value = IdempotencyKeys.normalize(value);
  }
}
