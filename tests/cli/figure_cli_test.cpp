// Runs `qkv-studio figure` as a script or a Makefile would: no display, no Qt environment
// variable, files checked on disk.

#include <gtest/gtest.h>

#include <sys/stat.h>

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>

#include "cli/cli_support.hpp"
#include "core/common/limits.hpp"
#include "support/test_paths.hpp"

namespace qkv {
namespace {

namespace fs = std::filesystem;

// The figures of a whole model (the Predict tab's): drawn from a checkpoint's layer on the
// model's own input, here the synthetic BERT's on a sentence with two [MASK]s.
// The Model and Predictions figures draw a whole model: a layer of the synthetic BERT checkpoint,
// which runs whole.
// The Circuits tab's figures need a readout that is the direct path, and the patching and logit
// lens figures a causal language model: the demo model.
bool isCircuitFigure(const std::string& name)
{
    return name.rfind("circuit-", 0) == 0 || name == "heads-map" || name.rfind("patching-", 0) == 0 ||
           name == "logit-lens";
}
bool isWholeModelFigure(const std::string& name)
{
    return name == "rollout" || name == "predictions" || name.rfind("model", 0) == 0 || isCircuitFigure(name);
}
std::vector<std::string> wholeModelSession(const std::string& name = {})
{
    if (name.rfind("patching-", 0) == 0)  // the guide's prompts: the clean one answers "e", the corrupted "f"
        return {"--weights",    std::string(qkv::sourceDir()) + "/docs/demo-model",
                "--layer",      "1",
                "--embeddings", "model",
                "--mode",       "causal",
                "--target",     "a b c d e a b c d",
                "--corrupt",    "a b c d f a b c d"};
    if (isCircuitFigure(name))
        return {"--weights",    std::string(qkv::sourceDir()) + "/docs/demo-model",
                "--layer",      "1",
                "--embeddings", "model",
                "--mode",       "causal",
                "--target",     "a b c d e f g h a b c d e f g"};
    return {"--weights",    std::string(qkv::testDataDir()) + "/pretrained/bert",
            "--layer",      "1",
            "--embeddings", "model",
            "--source",     "d [MASK] super / [MASK]"};
}
using testing::CommandRun;

// What a user has in a terminal with no display: neither DISPLAY nor WAYLAND_DISPLAY nor any
// Qt variable (ctest may run us with QT_QPA_PLATFORM=offscreen: the command must not need it).
const std::string kNoDisplay = "env -u DISPLAY -u WAYLAND_DISPLAY -u QT_QPA_PLATFORM";

CommandRun figure(const std::vector<std::string>& arguments, const std::string& environment = kNoDisplay)
{
    std::vector<std::string> all = {"figure"};
    all.insert(all.end(), arguments.begin(), arguments.end());
    return testing::run(all, environment);
}

std::string readFile(const std::string& path)
{
    std::ifstream file(path, std::ios::binary);
    return {std::istreambuf_iterator<char>(file), std::istreambuf_iterator<char>()};
}

// Width and height from a PNG's IHDR chunk (big-endian, bytes 16 to 23).
std::pair<std::uint32_t, std::uint32_t> pngSize(const std::string& bytes)
{
    const auto at = [&](std::size_t i) {
        return static_cast<std::uint32_t>(static_cast<unsigned char>(bytes[i])) << 24 |
               static_cast<std::uint32_t>(static_cast<unsigned char>(bytes[i + 1])) << 16 |
               static_cast<std::uint32_t>(static_cast<unsigned char>(bytes[i + 2])) << 8 |
               static_cast<std::uint32_t>(static_cast<unsigned char>(bytes[i + 3]));
    };
    if (bytes.size() < 24 || bytes.compare(0, 8, "\x89PNG\r\n\x1a\n") != 0 || bytes.compare(12, 4, "IHDR") != 0)
        return {0, 0};
    return {at(16), at(20)};
}

std::vector<std::string> lines(const std::string& text)
{
    std::vector<std::string> out;
    std::istringstream stream(text);
    for (std::string line; std::getline(stream, line);) out.push_back(line);
    return out;
}

// A binary PPM (P6, 8 bits) as pdftoppm writes it.
struct Ppm {
    long width = 0, height = 0;
    std::string rgb;  // width * height * 3 bytes
    bool valid() const { return width > 0 && height > 0 && rgb.size() == static_cast<std::size_t>(width * height * 3); }
};

Ppm readPpm(const std::string& bytes)
{
    std::istringstream in(bytes);
    std::string magic;
    Ppm ppm;
    int maxValue = 0;
    in >> magic >> ppm.width >> ppm.height >> maxValue;
    if (magic != "P6" || maxValue != 255) return {};
    in.get();  // the one whitespace before the pixels
    ppm.rgb = bytes.substr(static_cast<std::size_t>(in.tellg()));
    return ppm;
}

// Pixels within 3 of `rgb` in every channel.
long countColor(const Ppm& page, int r, int g, int b)
{
    long count = 0;
    for (std::size_t i = 0; i + 2 < page.rgb.size(); i += 3) {
        const auto near = [&](std::size_t at, int value) {
            return std::abs(static_cast<int>(static_cast<unsigned char>(page.rgb[at])) - value) <= 3;
        };
        if (near(i, r) && near(i + 1, g) && near(i + 2, b)) ++count;
    }
    return count;
}

class FigureCli : public ::testing::Test {
protected:
    void SetUp() override
    {
        directory_ = fs::temp_directory_path() /
                     ("qkv_figure_cli_" + std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()) +
                      "_" + std::to_string(::getpid()));  // two checkouts' suites may run at once
        fs::remove_all(directory_);
        fs::create_directories(directory_);
    }
    void TearDown() override { fs::remove_all(directory_); }
    std::string path(const std::string& name) const { return (directory_ / name).string(); }
    bool folderEmpty() const { return fs::is_empty(directory_); }

    fs::path directory_;
};

// Poppler reads the PDF as one page, which renders at 96 dpi not blank and without the
// selection's orange (255, 140, 0: kSelectionColor), which a publication figure leaves out.
// (Poppler runs here, in a process of its own, not inside the sanitized widget tests.)
void expectPdfIsOnePublicationPage(const std::string& pdf, const std::string& name)
{
    const CommandRun info = testing::runProgram("pdfinfo", {pdf});
    ASSERT_EQ(info.status, 0) << "pdfinfo (Debian package poppler-utils; the test command installs it): "
                              << info.output;
    EXPECT_NE(info.output.find("Pages:           1\n"), std::string::npos) << name << ": " << info.output;
    const std::string prefix = pdf.substr(0, pdf.size() - 4) + "-page";
    const CommandRun render = testing::runProgram("pdftoppm", {"-r", "96", "-singlefile", pdf, prefix});
    ASSERT_EQ(render.status, 0) << render.output;
    const Ppm page = readPpm(readFile(prefix + ".ppm"));
    ASSERT_TRUE(page.valid()) << name;
    const long white = countColor(page, 255, 255, 255);
    EXPECT_LT(white, page.width * page.height * 98 / 100) << name << ": the page renders blank";
    EXPECT_EQ(countColor(page, 255, 140, 0), 0) << name << ": the selection's marks are in the PDF";
}

TEST_F(FigureCli, ListsEveryFigureOnePerLine)
{
    const CommandRun listed = figure({"--list"});
    ASSERT_EQ(listed.status, 0) << listed.output;
    const std::vector<std::string> names = lines(listed.output);
    for (const char* name :
         {"heads", "head", "steps", "factored", "factor-product", "spectrum", "fused-layout", "equivalence",
          "comparison", "score-path", "layer-parameters", "parameters-vs-h", "score-flops"})
        EXPECT_NE(std::find(names.begin(), names.end(), name), names.end()) << name;
    for (const std::string& name : names) EXPECT_EQ(name.find(' '), std::string::npos) << name;
}

TEST_F(FigureCli, EveryFigureInEveryFormatWithoutADisplay)
{
    const std::vector<std::string> names = lines(figure({"--list"}).output);
    ASSERT_FALSE(names.empty());
    // The compare figure subtracts a pinned session's attention: another seed, the same shapes.
    const std::string pinned = path("pinned.qkv.json");
    ASSERT_EQ(testing::run({"export", "--format", "session", "--out", pinned, "--seed", "8"}).status, 0);
    const CommandRun unpinned = figure({"--figure", "compare", "--format", "png", "--out", path("unpinned.png")});
    EXPECT_EQ(unpinned.status, 1);
    EXPECT_NE(unpinned.output.find("Nothing is pinned"), std::string::npos) << unpinned.output;
    EXPECT_FALSE(fs::exists(path("unpinned.png")));
    // Without a model behind the layer, the whole model's figures say how to get one.
    const CommandRun modelless = figure({"--figure", "rollout", "--format", "png", "--out", path("rollout-none.png")});
    EXPECT_EQ(modelless.status, 1);
    EXPECT_NE(modelless.output.find("File > Open Checkpoint"), std::string::npos) << modelless.output;
    EXPECT_FALSE(fs::exists(path("rollout-none.png")));
    for (const std::string& name : names) {
        const std::string png = path(name + ".png"), svg = path(name + ".svg"), pdf = path(name + ".pdf");
        const auto drawFigure = [&](std::vector<std::string> arguments) {
            if (name == "compare") arguments.insert(arguments.end(), {"--pinned", pinned});
            if (isWholeModelFigure(name)) {
                const std::vector<std::string> session = wholeModelSession(name);
                arguments.insert(arguments.end(), session.begin(), session.end());
            }
            return figure(arguments);
        };
        const CommandRun a =
            drawFigure({"--figure", name, "--format", "png", "--out", png, "--width", "1000", "--height", "700"});
        ASSERT_EQ(a.status, 0) << name << ": " << a.output;
        // Quiet on success; a checkpoint's layer notes what its input is, line by line.
        for (const std::string& line : lines(a.output))
            EXPECT_TRUE(isWholeModelFigure(name) && line.rfind("qkv-studio: note: ", 0) == 0) << name << ": " << line;
        EXPECT_EQ(pngSize(readFile(png)), (std::pair<std::uint32_t, std::uint32_t>{1000, 700})) << name;
        const CommandRun b = drawFigure({"--figure", name, "--format", "svg", "--out", svg});
        ASSERT_EQ(b.status, 0) << name << ": " << b.output;
        const std::string svgText = readFile(svg);
        EXPECT_NE(svgText.find("<svg"), std::string::npos) << name;
        EXPECT_NE(svgText.find("<text"), std::string::npos) << name;  // text stays text
        EXPECT_NE(svgText.find("viewBox="), std::string::npos) << name;
        const CommandRun c = drawFigure({"--figure", name, "--format", "pdf", "--out", pdf});
        ASSERT_EQ(c.status, 0) << name << ": " << c.output;
        const std::string pdfBytes = readFile(pdf);
        EXPECT_EQ(pdfBytes.compare(0, 5, "%PDF-"), 0) << name;
        expectPdfIsOnePublicationPage(pdf, name);
    }
}

// Generated weights are no checkpoint's layer: nothing runs whole, and the command says what to open.
TEST_F(FigureCli, TheModelFiguresNeedALayerOfAModelThatRunsWhole)
{
    for (const char* name : {"model", "model-statistics"}) {
        const CommandRun run = figure({"--figure", name, "--format", "png", "--out", path("none.png")});
        EXPECT_EQ(run.status, 1) << name;
        EXPECT_NE(run.output.find("Open Checkpoint"), std::string::npos) << run.output;
        EXPECT_FALSE(fs::exists(path("none.png")));
    }
}

// Without a size, the Model figure is as tall as its grid needs: a small model's grid used to
// leave the bottom third of 1000 x 900 blank.
TEST_F(FigureCli, TheModelFigureHasNoBlankBand)
{
    std::vector<std::string> arguments = {"--figure", "model", "--format", "pdf", "--out", path("model.pdf")};
    const std::vector<std::string> session = wholeModelSession();
    arguments.insert(arguments.end(), session.begin(), session.end());
    const CommandRun run = figure(arguments);
    ASSERT_EQ(run.status, 0) << run.output;
    const std::string prefix = path("model-page");
    ASSERT_EQ(testing::runProgram("pdftoppm", {"-r", "96", "-singlefile", path("model.pdf"), prefix}).status, 0);
    const Ppm page = readPpm(readFile(prefix + ".ppm"));
    ASSERT_TRUE(page.valid());
    EXPECT_EQ(page.width, 1000);
    long lastDrawn = 0;  // the last row with anything but white on it
    for (long y = 0; y < page.height; ++y)
        for (long x = 0; x < page.width; ++x) {
            const std::size_t at = static_cast<std::size_t>((y * page.width + x) * 3);
            if (static_cast<unsigned char>(page.rgb[at]) < 200 || static_cast<unsigned char>(page.rgb[at + 2]) < 200) {
                lastDrawn = y;
                break;
            }
        }
    EXPECT_GE(lastDrawn, page.height - 30) << "rows " << lastDrawn << " to " << page.height << " are blank";
}

TEST_F(FigureCli, SizeAndDpiAndTheSessionsOptions)
{
    // --dpi: the default size (1400 x 900 for the heads grid) at 192 dpi.
    ASSERT_EQ(figure({"--figure", "heads", "--format", "png", "--out", path("a.png"), "--dpi", "192"}).status, 0);
    EXPECT_EQ(pngSize(readFile(path("a.png"))), (std::pair<std::uint32_t, std::uint32_t>{2800, 1800}));
    // One side keeps the default aspect ratio.
    ASSERT_EQ(figure({"--figure", "heads", "--format", "png", "--out", path("b.png"), "--width", "700"}).status, 0);
    EXPECT_EQ(pngSize(readFile(path("b.png"))), (std::pair<std::uint32_t, std::uint32_t>{700, 450}));
    // The export command's options describe the session; heads from 1, positions from 0.
    const CommandRun steps = figure({"--figure",  "steps", "--format", "svg",     "--out",   path("steps.svg"),
                                     "--mode",    "self",  "--source", "a b c d", "--heads", "2",
                                     "--d-model", "16",    "--head",   "2",       "--query", "3",
                                     "--key",     "0"});
    ASSERT_EQ(steps.status, 0) << steps.output;
    const std::string svg = readFile(path("steps.svg"));
    EXPECT_NE(svg.find("Head 2"), std::string::npos);
    EXPECT_NE(svg.find("query «d» (position 3)"), std::string::npos);
    // A preset names its heads.
    ASSERT_EQ(figure({"--figure", "heads", "--format", "svg", "--out", path("presets.svg"), "--preset", "2=same-token"})
                  .status,
              0);
    EXPECT_NE(readFile(path("presets.svg")).find("Head 2 · same token"), std::string::npos);
    // --show and --color-range reach the colour bar.
    ASSERT_EQ(figure({"--figure", "head", "--format", "svg", "--out", path("scores.svg"), "--show", "scores"}).status,
              0);
    EXPECT_NE(readFile(path("scores.svg")).find("scaled score q·k/√d_k"), std::string::npos);
    // Value-weighted attention, with the layer's own norm as the last panel, in SVG (text kept
    // as text) and as a PNG.
    const CommandRun norms = figure({"--figure", "heads", "--format", "svg", "--out", path("norms.svg"), "--show",
                                     "value-weighted", "--average", "--color-range", "unit"});
    ASSERT_EQ(norms.status, 0) << norms.output;
    const std::string normsSvg = readFile(path("norms.svg"));
    EXPECT_NE(normsSvg.find("Value-weighted ‖a·f(x)‖"), std::string::npos);            // the title
    EXPECT_NE(normsSvg.find("value-weighted attention ‖a·f(x)‖"), std::string::npos);  // the colour bar
    EXPECT_NE(normsSvg.find("the largest value"), std::string::npos);
    EXPECT_NE(normsSvg.find("Layer (all heads)"), std::string::npos);
    EXPECT_EQ(normsSvg.find("Average of"), std::string::npos);
    ASSERT_EQ(figure({"--figure", "head", "--format", "png", "--out", path("norms.png"), "--show", "value-weighted",
                      "--dpi", "192"})
                  .status,
              0);
    EXPECT_EQ(pngSize(readFile(path("norms.png"))), (std::pair<std::uint32_t, std::uint32_t>{1800, 1600}));
    ASSERT_EQ(
        figure({"--figure", "heads", "--format", "svg", "--out", path("fixed.svg"), "--color-range", "0:0.25"}).status,
        0);
    EXPECT_NE(readFile(path("fixed.svg")).find("fixed scale 0 to 0.25"), std::string::npos);
}

TEST_F(FigureCli, AQueryRowNamesItsQueryOrItsSpan)
{
    const std::vector<std::string> layer = {"--mode",  "self", "--source",  "a b c d e f",
                                            "--heads", "2",    "--d-model", "16"};
    auto with = [&](std::vector<std::string> arguments) {
        arguments.insert(arguments.end(), layer.begin(), layer.end());
        return arguments;
    };
    const CommandRun one =
        figure(with({"--figure", "query-row", "--format", "svg", "--out", path("one.svg"), "--query", "3"}));
    ASSERT_EQ(one.status, 0) << one.output;
    EXPECT_NE(readFile(path("one.svg")).find("query 3 “d”: its whole row"), std::string::npos);
    const CommandRun span =
        figure(with({"--figure", "query-row", "--format", "svg", "--out", path("span.svg"), "--query", "1:5"}));
    ASSERT_EQ(span.status, 0) << span.output;
    EXPECT_NE(readFile(path("span.svg")).find("queries 1–4 (4 together)"), std::string::npos);
    for (const char* bad : {"4:2", "3:3", "2:9", "a:b"}) {
        const CommandRun refused =
            figure(with({"--figure", "query-row", "--format", "svg", "--out", path("bad.svg"), "--query", bad}));
        EXPECT_EQ(refused.status, 2) << bad << ": " << refused.output;
        EXPECT_NE(refused.output.find("--query"), std::string::npos) << refused.output;
    }
    // The export's reader of A:B says the same of the same mistake; past the last query, it is named.
    const auto refusal = [&](const char* text) {
        return figure(with({"--figure", "query-row", "--format", "svg", "--out", path("bad.svg"), "--query", text}))
            .output;
    };
    EXPECT_NE(refusal("4:2").find("--query: '4:2' is empty or negative (A:B holds A..B-1, so B > A >= 0)"),
              std::string::npos);
    EXPECT_NE(refusal("2:9").find("--query: '2:9' reaches past the last query, 5."), std::string::npos);
    EXPECT_NE(refusal("9").find("--query: '9' reaches past the last query, 5."), std::string::npos);
    EXPECT_FALSE(fs::exists(path("bad.svg")));
}

TEST_F(FigureCli, ALongLayerIsDrawnAsTheWindowDrawsItAndAFigureOfFullMapsSaysWhyNot)
{
    // 4,200 tokens: past the held maps' 4,096, streamed as in the window.
    std::string text;
    for (int i = 0; i < 4200; ++i) text += i % 2 ? "cat " : "sat ";
    const std::string file = path("long.txt");
    {
        std::ofstream out(file);
        out << text;
    }
    const std::vector<std::string> layer = {"--mode",  "causal", "--target-file", file,
                                            "--heads", "2",      "--d-model",     "16"};
    auto with = [&](std::vector<std::string> arguments) {
        arguments.insert(arguments.end(), layer.begin(), layer.end());
        return arguments;
    };
    const CommandRun row =
        figure(with({"--figure", "query-row", "--format", "svg", "--out", path("row.svg"), "--query", "4000:4100"}));
    ASSERT_EQ(row.status, 0) << row.output;
    EXPECT_NE(readFile(path("row.svg")).find("queries 4,000–4,099 (100 together)"), std::string::npos);
    const CommandRun heads = figure(with({"--figure", "heads", "--format", "png", "--out", path("heads.png")}));
    EXPECT_EQ(heads.status, 0) << heads.output;
    const CommandRun steps = figure(with({"--figure", "steps", "--format", "png", "--out", path("steps.png")}));
    EXPECT_NE(steps.status, 0);
    EXPECT_NE(steps.output.find("Heads tab"), std::string::npos) << steps.output;
    EXPECT_FALSE(fs::exists(path("steps.png")));
}

TEST_F(FigureCli, IgnoresAQtPlatformTheUserCannotUse)
{
    // No display and a platform that needs one: the command still draws offscreen.
    const CommandRun drawn = figure({"--figure", "spectrum", "--format", "png", "--out", path("s.png")},
                                    kNoDisplay + " QT_QPA_PLATFORM=xcb");
    EXPECT_EQ(drawn.status, 0) << drawn.output;
    EXPECT_TRUE(fs::exists(path("s.png")));
}

TEST_F(FigureCli, BadArgumentsExitTwoNamingTheOption)
{
    const std::string out = path("x.png");
    const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
        {{"--format", "png", "--out", out}, "--figure"},
        {{"--figure", "heads", "--out", out}, "--format"},
        {{"--figure", "heads", "--format", "png"}, "--out"},
        {{"--figure", "nope", "--format", "png", "--out", out}, "--figure"},
        {{"--figure", "heads", "--format", "bmp", "--out", out}, "--format"},
        {{"--figure", "heads", "--format", "png", "--out", out, "--width", "wide"}, "--width"},
        {{"--figure", "heads", "--format", "png", "--out", out, "--height", "0"}, "--height"},
        {{"--figure", "heads", "--format", "png", "--out", out, "--dpi", "300", "--width", "100"}, "--dpi"},
        {{"--figure", "heads", "--format", "png", "--out", out, "--head", "0"}, "--head"},
        {{"--figure", "heads", "--format", "png", "--out", out, "--head", "9"}, "--head"},
        {{"--figure", "steps", "--format", "png", "--out", out, "--query", "99"}, "--query"},
        {{"--figure", "steps", "--format", "png", "--out", out, "--key", "-1"}, "--key"},
        {{"--figure", "heads", "--format", "png", "--out", out, "--heads", "5"}, "--heads"},
        {{"--figure", "heads", "--format", "png", "--out", out, "--show", "raw"}, "--show"},
        {{"--figure", "heads", "--format", "png", "--out", out, "--colormap", "jet"}, "--colormap"},
        {{"--figure", "heads", "--format", "png", "--out", out, "--color-range", "1:0"}, "--color-range"},
        {{"--figure", "heads", "--format", "png", "--out", out, "--frobnicate"}, "--frobnicate"},
        {{"--figure", "heads", "--format", "png", "--out", out, "--mode"}, "--mode"},
    };
    for (const auto& [arguments, option] : cases) {
        const CommandRun r = figure(arguments);
        EXPECT_EQ(r.status, 2) << option << ": " << r.output;
        if (option == "--show") {  // the list of choices, value-weighted among them
            EXPECT_NE(r.output.find("attention, scores, masked-scores, value-weighted"), std::string::npos) << r.output;
        }
        EXPECT_NE(r.output.find(option), std::string::npos) << r.output;
        EXPECT_EQ(std::count(r.output.begin(), r.output.end(), '\n'), 1) << "one line: " << r.output;
    }
    EXPECT_TRUE(folderEmpty());
}

TEST_F(FigureCli, FailuresExitOneAndLeaveNothingAtOut)
{
    // An unreadable session.
    std::ofstream(path("broken.qkv.json")) << "{ not json";
    CommandRun r =
        figure({"--figure", "heads", "--format", "png", "--out", path("a.png"), "--session", path("broken.qkv.json")});
    EXPECT_EQ(r.status, 1) << r.output;
    EXPECT_NE(r.output.find("broken.qkv.json"), std::string::npos) << r.output;
    EXPECT_FALSE(fs::exists(path("a.png")));
    // A folder that does not exist.
    r = figure({"--figure", "heads", "--format", "svg", "--out", path("missing/a.svg")});
    EXPECT_EQ(r.status, 1) << r.output;
    EXPECT_FALSE(fs::exists(path("missing")));
    // A FIFO is refused, not replaced (and never blocks).
    ASSERT_EQ(::mkfifo(path("pipe.pdf").c_str(), 0600), 0);
    r = figure({"--figure", "heads", "--format", "pdf", "--out", path("pipe.pdf")});
    EXPECT_EQ(r.status, 1) << r.output;
    EXPECT_TRUE(fs::is_fifo(path("pipe.pdf")));
    // A side past the figure-size limit is an argument error, naming the range.
    r = figure({"--figure", "heads", "--format", "svg", "--out", path("wide.svg"), "--width",
                std::to_string(limits::maxFigureSide + 1)});
    EXPECT_EQ(r.status, 2) << r.output;
    EXPECT_NE(r.output.find("is not between " + std::to_string(limits::minFigureSide) + " and " +
                            std::to_string(limits::maxFigureSide)),
              std::string::npos)
        << r.output;
    EXPECT_FALSE(fs::exists(path("wide.svg")));
    // A PNG too large to hold.
    r = figure({"--figure", "heads", "--format", "png", "--out", path("huge.png"), "--width", "20000", "--height",
                "20000", "--dpi", "2400"});
    EXPECT_EQ(r.status, 2) << r.output;  // --dpi with a size: an argument error
    r = figure({"--figure", "factored", "--format", "png", "--out", path("huge.png"), "--dpi", "2400"});
    EXPECT_EQ(r.status, 1) << r.output;
    EXPECT_FALSE(fs::exists(path("huge.png")));
    // An existing file is kept when the new figure cannot be written.
    std::ofstream(path("keep.png")) << "old";
    r = figure(
        {"--figure", "heads", "--format", "png", "--out", path("keep.png"), "--session", path("broken.qkv.json")});
    EXPECT_EQ(r.status, 1);
    EXPECT_EQ(readFile(path("keep.png")), "old");
}

TEST_F(FigureCli, HelpNamesTheConventions)
{
    const CommandRun help = figure({"--help"});
    EXPECT_EQ(help.status, 0);
    // The one figure-size limit, as written in core/common/limits.hpp (the Export Figure dialog's too).
    EXPECT_NE(help.output.find(std::to_string(limits::minFigureSide) + " to " + std::to_string(limits::maxFigureSide)),
              std::string::npos)
        << help.output;
    EXPECT_NE(help.output.find(std::to_string(limits::minFigureDpi) + " to " + std::to_string(limits::maxFigureDpi)),
              std::string::npos)
        << help.output;
    EXPECT_NE(help.output.find("numbered from 1"), std::string::npos);
    EXPECT_NE(help.output.find("position, from 0"), std::string::npos);
    EXPECT_NE(help.output.find("--list"), std::string::npos);
    EXPECT_NE(help.output.find("masked-scores,\n                             value-weighted"), std::string::npos)
        << help.output;  // every --show choice
    EXPECT_NE(testing::run({"--help"}).output.find("qkv-studio figure"), std::string::npos);
}

}  // namespace
}  // namespace qkv
