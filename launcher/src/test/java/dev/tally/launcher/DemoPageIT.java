package dev.tally.launcher;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.logging.Level;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.openqa.selenium.By;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.Keys;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.logging.LogEntry;
import org.openqa.selenium.logging.LogType;
import org.openqa.selenium.logging.LoggingPreferences;
import org.openqa.selenium.support.ui.WebDriverWait;

/**
 * The demo page at {@code GET /} in a real browser: Debian's headless Chromium driven by Selenium through
 * Debian's chromedriver (no download: both binaries are given, so Selenium Manager never runs). Two
 * visitors, each with their own browser profile: A upvotes an item and sees the count go up and the thumb
 * pressed; B, already on the page, gets the new count live over SSE without reloading; a screenshot of A
 * goes to {@code target/demo-page.png}; A's vote survives a reload; and with the whole API blocked the
 * page still shows the cached thumb, the ranking placeholder and a message instead of breaking.
 *
 * <p>Needs {@code apt-get install -y chromium chromium-driver} ({@code .ci/run} installs them): without them
 * it is skipped, or fails under {@code CI=true} ({@link RequiredTools}).
 */
@ExtendWith(RequiredTools.Chromium.class)
class DemoPageIT {
    private static final Path CHROMIUM = RequiredTools.Chromium.BROWSER;
    private static final Path CHROMEDRIVER = RequiredTools.Chromium.DRIVER;
    private static final Duration WAIT = Duration.ofSeconds(20);
    /** An item of the page's sample set; its count is read before clicking, so other tests may share it. */
    private static final String ITEM = "post:7";

    private static TallyNode node;
    private static String pageUrl;
    private static final List<WebDriver> browsers = new ArrayList<>();
    private static final List<Path> profiles = new ArrayList<>();

    @BeforeAll
    static void start() throws InterruptedException {
        // Selenium Manager would try to download a driver; with the driver named here it is never asked
        System.setProperty("webdriver.chrome.driver", CHROMEDRIVER.toString());
        node = WalkingSkeletonIT.startAll(WalkingSkeletonIT.env(SharedBroker.dataDir("node")));
        pageUrl = "http://127.0.0.1:" + node.httpPort() + "/";
    }

    @AfterAll
    static void stop() {
        for (WebDriver browser : browsers) {
            try {
                browser.quit();
            } catch (RuntimeException e) {
                System.err.println("DemoPageIT: closing a browser failed: " + e);
            }
        }
        if (node != null) {
            node.close();
        }
        for (Path profile : profiles) {
            deleteQuietly(profile);
        }
    }

    @Test
    void aVoteShowsAtOnceReachesAnotherVisitorLiveAndSurvivesAReload() throws IOException, InterruptedException {
        long started = System.nanoTime();
        ChromeDriver a = browser();
        ChromeDriver b = browser();
        a.get(pageUrl);
        b.get(pageUrl);
        awaitLoaded(a);
        awaitLoaded(b);

        // the contract: every item in [data-item="type:id"] with an upvote button and an upvotes count
        List<WebElement> cards = a.findElements(By.cssSelector("[data-item]"));
        assertThat(cards).hasSize(12);
        assertThat(cards).allSatisfy(card -> {
            assertThat(card.getDomAttribute("data-item")).matches("post:\\d+");
            assertThat(card.findElement(By.cssSelector("[data-testid=upvote]")).getTagName()).isEqualTo("button");
            assertThat(card.findElements(By.cssSelector("[data-testid=downvote]"))).hasSize(1);
            assertThat(card.findElements(By.cssSelector("[data-testid=upvotes]"))).hasSize(1);
            assertThat(card.findElements(By.cssSelector("[data-testid=downvotes]"))).hasSize(1);
        });
        assertThat(a.findElement(By.id("top-heading")).getText()).isEqualTo("Top posts");
        assertThat(a.findElement(By.cssSelector(".top-note")).getText()).as("says the rule the ranking uses")
                .startsWith("Ordered by upvotes").contains("Wilson lower bound");
        // the page links the API's document and its reference, and both are there
        for (String href : List.of("/openapi.json", "/docs/api.md")) {
            assertThat(a.findElements(By.cssSelector("footer a[href='" + href + "']"))).as("a link to %s", href).hasSize(1);
            HttpResponse<String> linked = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                    URI.create(pageUrl.replaceAll("/$", "") + href)).build(), HttpResponse.BodyHandlers.ofString());
            assertThat(linked.statusCode()).as(href).isEqualTo(200);
            assertThat(linked.body()).as(href).contains(href.endsWith(".md") ? "# " : "\"openapi\"");
        }

        long before = upvotes(a);
        await(b, d -> upvotes(d) == before); // B starts from the same count
        assertThat(upvoteButton(a).getDomAttribute("aria-pressed")).isEqualTo("false");
        ((JavascriptExecutor) b).executeScript("window.__stillTheSamePage = true;");

        upvoteButton(a).click();
        await(a, d -> upvotes(d) == before + 1 && "true".equals(upvoteButton(d).getDomAttribute("aria-pressed")));
        long clicked = System.nanoTime();

        await(b, d -> upvotes(d) == before + 1); // over the live stream: B never reloads
        System.out.printf("DemoPageIT: the vote reached the other page live %d ms after A saw it%n",
                (System.nanoTime() - clicked) / 1_000_000);
        assertThat(((JavascriptExecutor) b).executeScript("return window.__stillTheSamePage === true;")).isEqualTo(true);
        assertThat(upvoteButton(b).getDomAttribute("aria-pressed")).as("B is another visitor: their thumb is not pressed").isEqualTo("false");

        // the keyboard works too: Enter on a reaction button presses it
        WebElement love = card(a).findElement(By.cssSelector("[data-reaction=love]"));
        love.sendKeys(Keys.ENTER);
        await(a, d -> "true".equals(card(d).findElement(By.cssSelector("[data-reaction=love]")).getDomAttribute("aria-pressed")));

        assertThat(severeConsoleErrors(a)).as("no script error or CSP violation on the page").isEmpty();
        assertThat(severeConsoleErrors(b)).as("no script error or CSP violation on the other page").isEmpty();
        Path shot = Path.of(System.getProperty("basedir", "."), "target", "demo-page.png");
        Files.createDirectories(shot.getParent());
        Files.write(shot, a.getScreenshotAs(OutputType.BYTES));
        System.out.println("DemoPageIT: screenshot " + shot.toAbsolutePath());

        a.navigate().refresh();
        awaitLoaded(a);
        assertThat(upvoteButton(a).getDomAttribute("aria-pressed")).as("still pressed after a reload").isEqualTo("true");
        assertThat(upvotes(a)).isEqualTo(before + 1);
        assertThat(String.valueOf(a.executeScript("return localStorage.getItem('tally.choices.v1');")))
                .as("the choice is cached in localStorage").contains("\"" + ITEM + "\"");

        // nothing the backend does breaks the page: with every API call blocked, a reload still shows
        // the cached thumb, the ranking placeholder, and a click ends as a short message
        a.executeCdpCommand("Network.enable", Map.of());
        a.executeCdpCommand("Network.setBlockedURLs", Map.of("urls", List.of("*/v1/*")));
        a.navigate().refresh();
        await(a, d -> "true".equals(d.findElement(By.tagName("body")).getDomAttribute("data-loaded")));
        assertThat(upvoteButton(a).getDomAttribute("aria-pressed")).as("the cached choice, without the server").isEqualTo("true");
        await(a, d -> d.findElement(By.id("top-status")).getText().equals("Top posts are being updated"));
        assertThat(a.findElement(By.id("page-message")).getText()).contains("Counts could not be loaded");
        upvoteButton(a).click();
        await(a, d -> !card(d).findElement(By.cssSelector("[data-testid=message]")).getText().isBlank());
        assertThat(card(a).findElement(By.cssSelector("[data-testid=message]")).getText()).contains("Could not reach the server");
        assertThat(upvoteButton(a).getDomAttribute("aria-pressed")).isEqualTo("true");
        a.executeCdpCommand("Network.setBlockedURLs", Map.of("urls", List.of()));
        System.out.printf("DemoPageIT: browser part took %d ms%n", (System.nanoTime() - started) / 1_000_000);
    }

    @Test
    void theSortSwitcherShowsEachLiveListAsVotesMoveIt() throws IOException {
        TallyClient api = new TallyClient(node.httpPort());
        for (int i = 0; i < 6; i++) { // post 3 split evenly: in the controversial list
            String vote = "{\"item_type\":\"post\",\"item_id\":\"3\",\"vote_value\":" + (i % 2 == 0 ? 1 : -1) + "}";
            assertThat(api.vote("switcher-" + i, vote).status()).isEqualTo(200);
        }
        ChromeDriver c = browser();
        c.get(pageUrl);
        awaitLoaded(c);
        assertThat(c.findElement(By.cssSelector(".sorts button[aria-pressed=true]")).getText()).isEqualTo("Hot");
        awaitListOf(c, api, "hot");

        c.findElement(By.cssSelector(".sorts button[data-sort=controversial]")).click();
        awaitListOf(c, api, "controversial");
        assertThat(c.findElements(By.cssSelector(".sorts button[aria-pressed=true]"))).extracting(WebElement::getText)
                .containsExactly("Controversial");
        // a vote moves the lists live: the page shows the list as it stands after it, without a reload
        assertThat(api.vote("switcher-6", "{\"item_type\":\"post\",\"item_id\":\"3\",\"vote_value\":1}").status()).isEqualTo(200);
        awaitListOf(c, api, "controversial");

        c.findElement(By.cssSelector(".sorts button[data-window=day]")).click();
        awaitListOf(c, api, "top&window=day");
        assertThat(severeConsoleErrors(c)).isEmpty();
    }

    /**
     * Waits until the switcher shows the list the API answers for {@code sort}: the same posts in the same order, each
     * by its title on the page, or "Post id" for a post the page does not show.
     */
    private static void awaitListOf(ChromeDriver c, TallyClient api, String sort) {
        await(c, d -> {
            List<String> expected = new ArrayList<>();
            for (var item : api.get(null, "/v1/rankings/post?limit=10&sort=" + sort).body().get("items")) {
                String id = item.get("item_id").asText();
                List<WebElement> card = d.findElements(By.id("post-" + id));
                expected.add(card.isEmpty() ? "Post " + id : card.get(0).findElement(By.className("item-title")).getText());
            }
            return !expected.isEmpty() && rankedTitles(d).equals(expected);
        });
    }

    /** The titles of the switcher's list, read in one script: the page redraws the list every two seconds. */
    private static List<String> rankedTitles(WebDriver d) {
        return texts(d, "return [...document.querySelectorAll('#ranked-list li > :first-child')].map(e => e.textContent);");
    }

    private static List<String> texts(WebDriver d, String script) {
        Object result = ((ChromeDriver) d).executeScript(script);
        return result instanceof List<?> list ? list.stream().map(String::valueOf).toList() : List.of();
    }

    private static ChromeDriver browser() throws IOException {
        Path profile = Files.createTempDirectory("tally-chromium-");
        profiles.add(profile);
        ChromeOptions options = new ChromeOptions();
        options.setBinary(CHROMIUM.toFile());
        options.addArguments("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update",
                "--disable-sync", "--user-data-dir=" + profile, "--window-size=1280,1400");
        LoggingPreferences logs = new LoggingPreferences();
        logs.enable(LogType.BROWSER, Level.ALL);
        options.setCapability(ChromeOptions.LOGGING_PREFS, logs);
        ChromeDriverService service = new ChromeDriverService.Builder()
                .usingDriverExecutable(CHROMEDRIVER.toFile()).usingAnyFreePort().build();
        ChromeDriver driver = new ChromeDriver(service, options);
        browsers.add(driver);
        return driver;
    }

    /** The page has read the counts and the visitor's state, and its live stream is open. */
    private static void awaitLoaded(WebDriver d) {
        await(d, x -> {
            WebElement body = x.findElement(By.tagName("body"));
            return "true".equals(body.getDomAttribute("data-loaded")) && "open".equals(body.getDomAttribute("data-live"))
                    && !x.findElements(By.cssSelector("[data-item='" + ITEM + "'] [data-reaction]")).isEmpty()
                    && upvotes(x) >= 0; // counts shown (a read refused just after start is filled in live)
        });
    }

    private static void await(WebDriver d, Function<WebDriver, Boolean> condition) {
        new WebDriverWait(d, WAIT, Duration.ofMillis(50)).until(condition::apply);
    }

    private static WebElement card(WebDriver d) {
        return d.findElement(By.cssSelector("[data-item='" + ITEM + "']"));
    }

    private static WebElement upvoteButton(WebDriver d) {
        return card(d).findElement(By.cssSelector("[data-testid=upvote]"));
    }

    private static long upvotes(WebDriver d) {
        String text = card(d).findElement(By.cssSelector("[data-testid=upvotes]")).getText().strip();
        return text.matches("\\d+") ? Long.parseLong(text) : -1;
    }

    /**
     * Script errors and Content-Security-Policy violations in the console. A refused request also logs at
     * SEVERE ("Failed to load resource"); the page handles those, so they are not counted here.
     */
    private static List<String> severeConsoleErrors(WebDriver d) {
        return d.manage().logs().get(LogType.BROWSER).getAll().stream()
                .filter(e -> e.getLevel().intValue() >= Level.SEVERE.intValue())
                .map(LogEntry::toString)
                .filter(m -> !m.contains("Failed to load resource"))
                .toList();
    }

    private static void deleteQuietly(Path dir) {
        try (Stream<Path> files = Files.walk(dir)) {
            files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException e) {
            System.err.println("DemoPageIT: could not delete " + dir + ": " + e);
        }
    }
}
