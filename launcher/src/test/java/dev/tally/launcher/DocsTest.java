package dev.tally.launcher;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/**
 * The documentation stays true to the repository: links resolve, the configuration page lists exactly the
 * variables the code reads, the version is the build's, and the user docs stay short and free of dated runs.
 */
class DocsTest {
    private static final Path ROOT = ReadmeExamplesIT.repositoryRoot();
    /** {@code [text](target)}, not an image's {@code ![…]}: the target without a title. */
    private static final Pattern LINK = Pattern.compile("(?<!!)\\[[^\\]]*\\]\\(([^)\\s]+)\\)");
    private static final Pattern HEADING = Pattern.compile("(?m)^#{1,6} (.+)$");
    private static final Pattern CODE_VARIABLE = Pattern.compile("\"(TALLY_[A-Z0-9_]+)\"");
    private static final Pattern SCRIPT_VARIABLE = Pattern.compile("TALLY_[A-Z0-9_]+");
    /** A table row's variable; {@code TALLY_KAFKA_<NAME>} documents the family {@code TALLY_KAFKA_}. */
    private static final Pattern DOCUMENTED_VARIABLE = Pattern.compile("(?m)^\\| `(TALLY_[A-Z0-9_]+)(?:<NAME>)?` \\|");
    /** {@code env.secret("TALLY_X")} or {@code env.secret(CONSTANT)}: the code reads {@code TALLY_X_FILE} too. */
    private static final Pattern SECRET = Pattern.compile("\\.secret\\((?:\"(TALLY_[A-Z0-9_]+)\"|([A-Z_]+))\\)");
    private static final Pattern DATED = Pattern.compile("20\\d\\d-[01]\\d-[0-3]\\d|[0-2]\\d:[0-5]\\d UTC");

    @Test
    void everyRelativeLinkInTheDocsResolvesToAFileAndHeading() {
        List<String> broken = new ArrayList<>();
        for (Path doc : userDocs()) {
            String text = withoutCodeBlocks(read(doc));
            Matcher m = LINK.matcher(text);
            while (m.find()) {
                String target = m.group(1);
                if (target.matches("[a-z]+:.*")) {
                    continue; // https:, mailto: — outside the repository
                }
                int hash = target.indexOf('#');
                String file = hash < 0 ? target : target.substring(0, hash);
                Path resolved = file.isEmpty() ? doc : doc.getParent().resolve(file).normalize();
                String where = ROOT.relativize(doc) + ": " + target;
                if (!resolved.startsWith(ROOT) || !Files.exists(resolved)) {
                    broken.add(where + " (no such file)");
                } else if (hash >= 0 && !(Files.isRegularFile(resolved) && anchors(resolved).contains(target.substring(hash + 1)))) {
                    broken.add(where + " (no such heading)");
                }
            }
        }
        assertThat(broken).as("broken links").isEmpty();
    }

    @Test
    void theConfigurationPageListsExactlyTheVariablesTheCodeReads() throws IOException {
        Set<String> read = new TreeSet<>();
        try (Stream<Path> files = Files.walk(ROOT)) {
            files.filter(f -> f.toString().endsWith(".java") && f.toString().contains("/src/main/")).forEach(f -> {
                String source = read(f);
                CODE_VARIABLE.matcher(source).results().forEach(r -> read.add(r.group(1)));
                SECRET.matcher(source).results().forEach(r -> read.add(secretName(source, r) + "_FILE"));
            });
        }
        SCRIPT_VARIABLE.matcher(read(ROOT.resolve("tally"))).results().forEach(r -> read.add(r.group()));
        Set<String> documented = new TreeSet<>();
        DOCUMENTED_VARIABLE.matcher(read(ROOT.resolve("docs/configuration.md"))).results().forEach(r -> documented.add(r.group(1)));

        assertThat(read).as("variables the code reads").contains("TALLY_SECRET", "TALLY_BOOTSTRAP", "TALLY_JAVA_OPTS");
        Set<String> undocumented = new TreeSet<>(read);
        undocumented.removeAll(documented);
        Set<String> unread = new TreeSet<>(documented);
        unread.removeAll(read);
        assertThat(undocumented).as("read by the code but not in docs/configuration.md").isEmpty();
        assertThat(unread).as("in docs/configuration.md but read by no code").isEmpty();
    }

    @Test
    void theVersionIsTheBuildsAndTheChangelogsNewestRelease() {
        StringWriter out = new StringWriter();
        CommandLine cli = new CommandLine(new Tally());
        cli.setOut(new PrintWriter(out));

        assertThat(cli.execute("--version")).isZero();

        Matcher pom = Pattern.compile("<artifactId>tally-parent</artifactId>\\s*<version>([^<]+)</version>")
                .matcher(read(ROOT.resolve("pom.xml")));
        assertThat(pom.find()).as("the parent pom's version").isTrue();
        assertThat(out.toString().strip()).isEqualTo("tally " + pom.group(1));
        Matcher release = Pattern.compile("(?m)^## (\\d+\\.\\d+\\.\\d+) - \\d{4}-\\d\\d-\\d\\d$").matcher(read(ROOT.resolve("CHANGELOG.md")));
        assertThat(release.find()).as("CHANGELOG.md names a release").isTrue();
        assertThat(pom.group(1)).as("the version the build reports").isEqualTo(release.group(1));
    }

    @Test
    void theUserDocsStayShortAndStateWhatIsTrueNow() {
        assertThat(read(ROOT.resolve("README.md")).lines().count()).as("README.md lines").isLessThanOrEqualTo(250);
        assertThat(read(ROOT.resolve("docs/performance.md")).lines().count()).as("docs/performance.md lines").isLessThanOrEqualTo(300);
        List<String> dated = new ArrayList<>();
        for (Path doc : userDocs()) {
            if (doc.startsWith(ROOT.resolve("docs/decisions")) || doc.equals(ROOT.resolve("CHANGELOG.md"))) {
                continue; // decision records may date their measurements; CHANGELOG.md dates releases
            }
            read(doc).lines().filter(l -> DATED.matcher(l).find()).forEach(l -> dated.add(ROOT.relativize(doc) + ": " + l));
        }
        assertThat(dated).as("lines that date a run or name an hour").isEmpty();
    }

    /** The variable of a {@code secret(…)} call: its literal, or the string constant it names in the same source. */
    private static String secretName(String source, java.util.regex.MatchResult call) {
        if (call.group(1) != null) {
            return call.group(1);
        }
        Matcher constant = Pattern.compile(call.group(2) + " = \"(TALLY_[A-Z0-9_]+)\"").matcher(source);
        assertThat(constant.find()).as("the constant %s", call.group(2)).isTrue();
        return constant.group(1);
    }

    /** README.md, CONTRIBUTING.md, CHANGELOG.md and every Markdown file under docs/. */
    private static List<Path> userDocs() {
        List<Path> docs = new ArrayList<>(List.of(ROOT.resolve("README.md"), ROOT.resolve("CONTRIBUTING.md"),
                ROOT.resolve("CHANGELOG.md")));
        try (Stream<Path> files = Files.walk(ROOT.resolve("docs"))) {
            files.filter(f -> f.toString().endsWith(".md")).sorted().forEach(docs::add);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return docs;
    }

    /** The anchors GitHub gives a Markdown file's headings: lower case, punctuation dropped, spaces as hyphens. */
    static Set<String> anchors(Path doc) {
        Set<String> anchors = new TreeSet<>();
        Matcher m = HEADING.matcher(withoutCodeBlocks(read(doc)));
        while (m.find()) {
            anchors.add(m.group(1).strip().toLowerCase(Locale.ROOT)
                    .replaceAll("[^\\p{L}\\p{N} _-]", "").replace(' ', '-'));
        }
        return anchors;
    }

    private static String withoutCodeBlocks(String markdown) {
        return markdown.replaceAll("(?ms)^```.*?^```", "");
    }

    private static String read(Path file) {
        try {
            return Files.readString(file);
        } catch (IOException e) {
            throw new UncheckedIOException("reading " + file, e);
        }
    }
}
