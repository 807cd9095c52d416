package io.slotkeeper.app;

import java.awt.Graphics2D;
import java.awt.image.BufferedImage;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.logging.Level;
import java.util.stream.Collectors;
import javax.imageio.IIOImage;
import javax.imageio.ImageIO;
import javax.imageio.ImageWriteParam;
import javax.imageio.ImageWriter;
import javax.imageio.stream.ImageOutputStream;
import javax.imageio.stream.MemoryCacheImageOutputStream;
import org.junit.jupiter.api.Assumptions;
import org.openqa.selenium.By;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.Keys;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.logging.LogEntry;
import org.openqa.selenium.logging.LogType;
import org.openqa.selenium.logging.LoggingPreferences;
import org.openqa.selenium.support.ui.ExpectedConditions;
import org.openqa.selenium.support.ui.WebDriverWait;

/**
 * Debian's headless chromium driven by its own chromedriver: the browser and the driver come from
 * apt ({@code .ci/run} installs them), never downloaded (Selenium Manager is not asked: both paths
 * are given).
 */
final class ConsoleBrowser implements AutoCloseable {

  static final Path CHROMIUM = Path.of("/usr/bin/chromium");
  static final Path CHROMEDRIVER = Path.of("/usr/bin/chromedriver");
  static final Path SCREENSHOTS = Path.of("target", "console-screenshots");

  final ChromeDriver driver;
  final WebDriverWait wait;
  private final String base;

  ConsoleBrowser(String base) {
    Assumptions.assumeTrue(
        Files.isExecutable(CHROMIUM) && Files.isExecutable(CHROMEDRIVER),
        "chromium and chromium-driver are not installed (apt-get install chromium"
            + " chromium-driver; .ci/run does it): the console's browser tests cannot run");
    System.setProperty("webdriver.chrome.driver", CHROMEDRIVER.toString());
    ChromeOptions options = new ChromeOptions();
    options.setBinary(CHROMIUM.toFile());
    options.addArguments(
        "--headless=new",
        "--no-sandbox",
        "--disable-dev-shm-usage",
        "--disable-gpu",
        "--window-size=1280,800",
        "--hide-scrollbars",
        "--no-first-run",
        "--disable-extensions",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync");
    LoggingPreferences logs = new LoggingPreferences();
    logs.enable(LogType.BROWSER, Level.ALL);
    options.setCapability("goog:loggingPrefs", logs);
    ChromeDriverService service =
        new ChromeDriverService.Builder()
            .usingDriverExecutable(new File(CHROMEDRIVER.toString()))
            .usingAnyFreePort()
            .build();
    driver = new ChromeDriver(service, options);
    driver.manage().timeouts().scriptTimeout(Duration.ofSeconds(20));
    wait = new WebDriverWait(driver, Duration.ofSeconds(20));
    this.base = base;
  }

  /** Opens a console route ("#/schedules") and waits for the page's script to have run. */
  void open(String hash) {
    driver.get(base + "/console/" + hash);
    wait.until(d -> !d.findElement(By.id("view")).getText().isBlank());
  }

  /** Goes to a route of the loaded console without reloading it. */
  void go(String hash) {
    driver.executeScript("location.hash = arguments[0]", hash);
  }

  WebElement await(String css) {
    return wait.until(ExpectedConditions.visibilityOfElementLocated(By.cssSelector(css)));
  }

  void awaitText(String css, String text) {
    wait.until(ExpectedConditions.textToBePresentInElementLocated(By.cssSelector(css), text));
  }

  boolean present(String css) {
    return !driver.findElements(By.cssSelector(css)).isEmpty();
  }

  void click(String css) {
    wait.until(ExpectedConditions.elementToBeClickable(By.cssSelector(css))).click();
  }

  void type(String css, String text) {
    WebElement input = await(css);
    input.clear();
    input.sendKeys(text);
  }

  Object script(String js, Object... args) {
    return ((JavascriptExecutor) driver).executeScript(js, args);
  }

  Object asyncScript(String js, Object... args) {
    return ((JavascriptExecutor) driver).executeAsyncScript(js, args);
  }

  void signIn(String token) {
    open("#/signin");
    if (present("#sign-out:not([hidden])")) {
      click("#sign-out");
    }
    // By keyboard: the form submits on Enter.
    type("#token", token + Keys.ENTER);
    wait.until(d -> d.findElement(By.id("who")).getText().length() > 0);
  }

  /** Emulates a viewport (CSS pixels), as a phone's or the 1280x800 desktop's. */
  void viewport(int width, int height, boolean mobile) {
    driver.executeCdpCommand(
        "Emulation.setDeviceMetricsOverride",
        Map.of("width", width, "height", height, "deviceScaleFactor", 1, "mobile", mobile));
  }

  /** Whether the page is wider than the viewport (a horizontal scroll). */
  boolean scrollsSideways() {
    return (Boolean)
        script(
            "return document.documentElement.scrollWidth > document.documentElement.clientWidth");
  }

  /**
   * Writes the page as {@code name.png}, small enough to commit under docs/console/: the browser
   * encodes its PNG for speed (with an alpha channel an opaque page does not need), so it is
   * re-encoded as RGB at the best deflate level; nothing is scaled, the text stays as sharp.
   */
  void screenshot(String name) throws IOException {
    Files.createDirectories(SCREENSHOTS);
    BufferedImage shot =
        ImageIO.read(new ByteArrayInputStream(driver.getScreenshotAs(OutputType.BYTES)));
    BufferedImage rgb =
        new BufferedImage(shot.getWidth(), shot.getHeight(), BufferedImage.TYPE_INT_RGB);
    Graphics2D g = rgb.createGraphics();
    g.drawImage(shot, 0, 0, null);
    g.dispose();
    ImageWriter writer = ImageIO.getImageWritersByFormatName("png").next();
    ImageWriteParam best = writer.getDefaultWriteParam();
    best.setCompressionMode(ImageWriteParam.MODE_EXPLICIT);
    best.setCompressionQuality(0f); // 0 is the smallest, the slowest: deflate level 9
    ByteArrayOutputStream png = new ByteArrayOutputStream();
    try (ImageOutputStream out = new MemoryCacheImageOutputStream(png)) {
      writer.setOutput(out);
      writer.write(null, new IIOImage(rgb, null, null), best);
    } finally {
      writer.dispose();
    }
    Files.write(SCREENSHOTS.resolve(name + ".png"), png.toByteArray());
  }

  /** The browser console's entries since the last call, as text. */
  List<String> consoleEntries(Level atLeast) {
    return driver.manage().logs().get(LogType.BROWSER).getAll().stream()
        .filter(e -> e.getLevel().intValue() >= atLeast.intValue())
        .map(LogEntry::toString)
        .collect(Collectors.toList());
  }

  @Override
  public void close() {
    driver.quit();
  }
}
