package io.slotkeeper.platform.config;

/** Invalid configuration; the message names the setting and says what is expected. */
public final class ConfigException extends RuntimeException {

  private final String setting;

  public ConfigException(String setting, String problem) {
    super(setting + ": " + problem);
    this.setting = setting;
  }

  /** The environment variable (or file key) at fault. */
  public String setting() {
    return setting;
  }
}
