package io.metaroce.core.docs;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.Test;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.Node;
import org.w3c.dom.NodeList;

/**
 * R-JAVA-1: embeddable as a Maven dependency, no native code to build, JDK 25. Reads the build
 * files themselves (paths relative to this module, Maven's working directory for tests): the
 * dependency the README tells users to add is a module of this build at its version, the build
 * compiles for release 25 and has no native sources or native build plugins, and the engine needs
 * nothing but Agrona at run time.
 */
class EmbeddingTest {
    private static final Path ROOT = Path.of("..");
    private static final Set<String> NATIVE_SOURCE_ENDINGS =
            Set.of(".c", ".cc", ".cpp", ".cxx", ".h", ".hpp", ".rs", ".go", ".asm", ".s");
    private static final Pattern NATIVE_BUILD_PLUGIN = Pattern.compile("nar|cmake|native|make|jni|exec",
            Pattern.CASE_INSENSITIVE);

    @Test
    void theReadmesMavenDependencyIsAModuleOfThisBuildAtItsVersion() throws Exception {
        String readme = Files.readString(ROOT.resolve("README.md"));
        Matcher block = Pattern.compile("## Use it from Maven.*?```xml\\n(.*?)```", Pattern.DOTALL).matcher(readme);
        assertThat(block.find()).as("README.md has an xml block under '## Use it from Maven'").isTrue();
        Element dependency = parse(block.group(1)).getDocumentElement();
        Element parent = pom(ROOT).getDocumentElement();
        assertThat(text(dependency, "groupId")).isEqualTo(text(parent, "groupId"));
        assertThat(text(dependency, "version")).isEqualTo(text(parent, "version"));
        assertThat(children(child(parent, "modules"), "module")).contains(text(dependency, "artifactId"));
        assertThat(text(dependency, "artifactId")).as("the module applications embed: the UDP datapath")
                .isEqualTo("metaroce-netty");
    }

    @Test
    void theBuildTargetsJdk25AndCompilesNoNativeCode() throws Exception {
        Element parent = pom(ROOT).getDocumentElement();
        assertThat(text(child(parent, "properties"), "maven.compiler.release")).isEqualTo("25");
        List<String> problems = new ArrayList<>();
        for (String module : children(child(parent, "modules"), "module")) {
            Path dir = ROOT.resolve(module);
            try (Stream<Path> files = Files.walk(dir.resolve("src"))) {
                files.filter(f -> NATIVE_SOURCE_ENDINGS.stream().anyMatch(e -> f.toString().endsWith(e))
                        || f.getFileName().toString().equals("CMakeLists.txt")
                        || f.getFileName().toString().equals("Makefile"))
                        .forEach(f -> problems.add(module + ": native source " + f));
            }
            problems.addAll(nativePlugins(module, dir));
        }
        problems.addAll(nativePlugins("parent", ROOT));
        assertThat(problems).as("native code or native build steps").isEmpty();
    }

    @Test
    void theEngineNeedsOnlyAgronaAtRunTime() throws Exception {
        Element core = pom(ROOT.resolve("metaroce-core")).getDocumentElement();
        List<String> runtime = new ArrayList<>();
        for (Element dependency : elements(child(core, "dependencies"), "dependency")) {
            String scope = text(dependency, "scope");
            if (!scope.equals("test") && !scope.equals("provided")) {
                runtime.add(text(dependency, "groupId") + ":" + text(dependency, "artifactId"));
            }
        }
        assertThat(runtime).containsExactly("org.agrona:agrona");
    }

    private static List<String> nativePlugins(String module, Path dir) throws Exception {
        List<String> found = new ArrayList<>();
        NodeList plugins = pom(dir).getElementsByTagName("plugin");
        for (int i = 0; i < plugins.getLength(); i++) {
            String artifact = text((Element) plugins.item(i), "artifactId");
            if (NATIVE_BUILD_PLUGIN.matcher(artifact).find()) {
                found.add(module + ": build plugin " + artifact);
            }
        }
        return found;
    }

    private static Document pom(Path moduleDir) throws Exception {
        return parse(Files.readString(moduleDir.resolve("pom.xml")));
    }

    private static Document parse(String xml) throws Exception {
        return DocumentBuilderFactory.newInstance().newDocumentBuilder()
                .parse(new java.io.ByteArrayInputStream(xml.getBytes(java.nio.charset.StandardCharsets.UTF_8)));
    }

    /** The direct child of that name, or fails. */
    private static Element child(Element parent, String name) {
        for (Element e : elements(parent, name)) {
            return e;
        }
        throw new AssertionError("<" + parent.getTagName() + "> has no <" + name + ">");
    }

    /** The text of the direct child of that name, or "" when there is none. */
    private static String text(Element parent, String name) {
        List<Element> found = elements(parent, name);
        return found.isEmpty() ? "" : found.get(0).getTextContent().strip();
    }

    private static List<String> children(Element parent, String name) {
        return elements(parent, name).stream().map(e -> e.getTextContent().strip()).toList();
    }

    private static List<Element> elements(Element parent, String name) {
        List<Element> found = new ArrayList<>();
        for (Node n = parent.getFirstChild(); n != null; n = n.getNextSibling()) {
            if (n instanceof Element e && e.getTagName().equals(name)) {
                found.add(e);
            }
        }
        return found;
    }
}
