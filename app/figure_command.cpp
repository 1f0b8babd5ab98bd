#include "app/figure_command.hpp"

#include <QApplication>
#include <QFontDatabase>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "app/export_arguments.hpp"
#include "app/usage_text.hpp"
#include "core/common/limits.hpp"
#include "core/common/position_span.hpp"
#include "core/pipeline/compute.hpp"
#include "core/pipeline/model_overview.hpp"
#include "ui/figure_registry/figure_registry.hpp"
#include "ui/figures/figure_export.hpp"
#include "ui/figures/figure_render.hpp"
#include "ui/figures/figure_text.hpp"
#include "ui/heads/score_kind.hpp"
#include "ui/patching/patching_data.hpp"
#include "ui/render/colormap.hpp"

namespace qkv::app {
namespace {

// The whole model run on the session's sentences with its switched-off heads (view.model_heads_off).
Expected<std::shared_ptr<const ModelOverview>> wholeModelOverview(const std::shared_ptr<const PretrainedModel>& model,
                                                                  const Session& session, bool valueNorms)
{
    ModelOverviewRequest request;
    request.source = session.config.sourceText;
    request.target = session.config.targetText;
    request.valueNorms = valueNorms;
    for (const std::string& text : session.view.modelHeadsOff) {
        Expected<ModelHead> head = parseModelHead(*model, text);
        if (!head) return Error{"view.model_heads_off: " + head.error()};
        request.ablatedHeads.insert(*head);
    }
    Expected<ModelOverview> overview = computeModelOverview(model, request);
    if (!overview) return Error{overview.error()};
    return std::make_shared<const ModelOverview>(std::move(*overview));
}

int fail(int status, const std::string& message)
{
    std::fprintf(stderr, "qkv-studio figure: %s\n", message.c_str());
    return status;
}

struct FigureArguments : SessionArguments {
    bool list = false;
    std::string figure, format, out;
    std::optional<int> width, height, dpi;
    std::optional<Index> head, key;      // head from 1 as typed; the key's position from 0
    std::optional<std::string> queries;  // --query N or A:B as typed: checked once the result is known
    std::optional<std::string> show, colormap;
    std::optional<ColorRange> colorRange;
    bool average = false;
    std::optional<std::string> pinned;  // a session whose result the compare figure subtracts
    // The patching figures: the corrupted prompt, and A and B as text (default: each run's top-1).
    std::optional<std::string> corrupt, answer, wrong;
};

template <class Integer>
Integer wholeNumber(std::string_view option, std::string_view text, Integer low, Integer high)
{
    Integer value{};
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (error != std::errc{} || end != text.data() + text.size())
        throw ArgumentError{std::string(option) + ": '" + std::string(text) + "' is not a whole number"};
    if (value < low || value > high)
        throw ArgumentError{std::string(option) + ": " + std::string(text) + " is not between " + std::to_string(low) +
                            " and " + std::to_string(high)};
    return value;
}

double realNumber(std::string_view option, std::string_view text)
{
    double value = 0;
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (error != std::errc{} || end != text.data() + text.size() || !std::isfinite(value))
        throw ArgumentError{std::string(option) + ": '" + std::string(text) + "' is not a number"};
    return value;
}

ColorRange parseColorRange(std::string_view text)
{
    // auto and unit as sessions spell them; a fixed range is spelled by its bounds.
    if (const auto mode = parseName(kColorRangeModeNames, text); mode && *mode != ColorRange::Mode::Fixed)
        return {*mode, 0.0, 1.0};
    const auto colon = text.find(':');
    if (colon == std::string_view::npos)
        throw ArgumentError{"--color-range: '" + std::string(text) + "' is not auto, unit or LOW:HIGH"};
    const double low = realNumber("--color-range", text.substr(0, colon));
    const double high = realNumber("--color-range", text.substr(colon + 1));
    if (!(low < high)) throw ArgumentError{"--color-range: LOW must be below HIGH"};
    return {ColorRange::Mode::Fixed, low, high};
}

FigureArguments parseFigureArguments(int argc, char** argv)
{
    FigureArguments a;
    for (int i = 2; i < argc; ++i) {
        const std::string_view option = argv[i];
        if (option == "--list")
            a.list = true;
        else if (option == "--average")
            a.average = true;
        else if (option == "--pinned") {
            a.pinned = optionValue(argc, argv, i);
            if (a.pinned->empty()) throw ArgumentError{"--pinned: the path is empty"};
        } else if (option == "--corrupt" || option == "--answer" || option == "--wrong") {
            std::optional<std::string>& text = option == "--corrupt"  ? a.corrupt
                                               : option == "--answer" ? a.answer
                                                                      : a.wrong;
            text = std::string(optionValue(argc, argv, i));
            if (text->empty()) throw ArgumentError{std::string(option) + ": needs a text"};
        } else if (option == "--figure")
            a.figure = optionValue(argc, argv, i);
        else if (option == "--format") {
            const std::string_view v = optionValue(argc, argv, i);
            ui::FigureFormat format;
            if (!ui::figureFormatFromName(QString::fromUtf8(v.data(), static_cast<qsizetype>(v.size())), format))
                throw ArgumentError{"--format: '" + std::string(v) + "' is not one of png, svg, pdf"};
            a.format = v;
        } else if (option == "--out") {
            a.out = optionValue(argc, argv, i);
            if (a.out.empty()) throw ArgumentError{"--out: the path is empty"};
        } else if (option == "--width")
            a.width = wholeNumber(option, optionValue(argc, argv, i), limits::minFigureSide, limits::maxFigureSide);
        else if (option == "--height")
            a.height = wholeNumber(option, optionValue(argc, argv, i), limits::minFigureSide, limits::maxFigureSide);
        else if (option == "--dpi")
            a.dpi = wholeNumber(option, optionValue(argc, argv, i), limits::minFigureDpi, limits::maxFigureDpi);
        else if (option == "--head")
            a.head = wholeNumber<Index>(option, optionValue(argc, argv, i), 1, limits::maxHeads);
        else if (option == "--query") {
            // N, or A:B for several queries together (half-open, as export --rows): a typo is
            // said at once, the last query once the layer is computed (optionsFor).
            const std::string_view v = optionValue(argc, argv, i);
            if (const Expected<PositionSpan> span = parsePositionSpan(v); !span)
                throw ArgumentError{"--query: " + span.error()};
            a.queries = std::string(v);
        } else if (option == "--key")
            a.key = wholeNumber<Index>(option, optionValue(argc, argv, i), 0, limits::maxTokens - 1);
        else if (option == "--show") {
            const std::string_view v = optionValue(argc, argv, i);
            ui::ScoreKind kind;
            if (!ui::scoreKindFromId(QString::fromUtf8(v.data(), static_cast<qsizetype>(v.size())), kind))
                throw ArgumentError{"--show: '" + std::string(v) + "' is not one of " + allowedNames(ui::kScoreKinds)};
            a.show = v;
        } else if (option == "--colormap") {
            const std::string_view v = optionValue(argc, argv, i);
            ui::ColormapName name;
            if (!ui::colormapFromId(QString::fromUtf8(v.data(), static_cast<qsizetype>(v.size())), name))
                throw ArgumentError{"--colormap: '" + std::string(v) + "' is not one of " +
                                    allowedNames(ui::kColormapNames)};
            a.colormap = v;
        } else if (option == "--color-range")
            a.colorRange = parseColorRange(optionValue(argc, argv, i));
        else if (!parseSessionOption(a, argc, argv, i))
            throw ArgumentError{"unknown argument '" + std::string(option) + "' (see qkv-studio figure --help)"};
    }
    if (a.list) return a;
    if (a.figure.empty()) throw ArgumentError{"--figure: required (qkv-studio figure --list names them)"};
    if (a.format.empty()) throw ArgumentError{"--format: required (png, svg or pdf)"};
    if (a.out.empty()) throw ArgumentError{"--out: an output path is required"};
    if (a.dpi && (a.width || a.height)) throw ArgumentError{"--dpi: give either --width/--height or --dpi, not both"};
    return a;
}

// The figure's size: --width/--height (one of them keeps the default aspect ratio), or the
// default size at --dpi, or the default size.
ui::ExportSize sizeFor(const FigureArguments& a, const QSizeF& defaultSize)
{
    ui::ExportSize size{defaultSize, 1.0};
    if (a.width && a.height)
        size.size = QSizeF(*a.width, *a.height);
    else if (a.width)
        size.size = QSizeF(*a.width, std::round(*a.width * defaultSize.height() / defaultSize.width()));
    else if (a.height)
        size.size = QSizeF(std::round(*a.height * defaultSize.width() / defaultSize.height()), *a.height);
    if (a.dpi) size.pixelRatio = *a.dpi / 96.0;
    return size;
}

// What the figure shows: the session's view, then the options given here. Throws
// ArgumentError when the head or a position does not exist in `result`.
ui::FigureOptions optionsFor(const FigureArguments& a, const Session& session, const Result& result)
{
    ui::FigureOptions o;
    o.view = session.view;
    const AttentionResult& r = result.attention;
    if (a.head && *a.head > r.headCount())
        throw ArgumentError{"--head: head " + std::to_string(*a.head) + " does not exist; heads are numbered 1 to " +
                            std::to_string(r.headCount())};
    std::optional<PositionSpan> queries;
    if (a.queries) {
        Expected<PositionSpan> span = parsePositionSpan(*a.queries, r.queryCount(), "query");
        if (!span) throw ArgumentError{"--query: " + span.error()};
        queries = *span;
    }
    if (a.key && *a.key >= r.keyCount())
        throw ArgumentError{"--key: position " + std::to_string(*a.key) + " does not exist; key positions are 0 to " +
                            std::to_string(r.keyCount() - 1)};
    o.head = a.head ? *a.head - 1 : std::clamp<Index>(session.view.head, 0, r.headCount() - 1);
    o.query = queries ? queries->begin : std::clamp<Index>(session.view.query, 0, r.queryCount() - 1);
    // A span: the one typed, else the session's when --query is not given.
    if (queries)
        o.queryEnd = queries->size() > 1 ? queries->end : 0;
    else if (session.view.querySpanEnd > o.query + 1)
        o.queryEnd = std::min<Index>(session.view.querySpanEnd, r.queryCount());
    o.key = a.key ? *a.key : std::clamp<Index>(session.view.key, 0, r.keyCount() - 1);
    if (a.show) {
        o.view.show = *a.show;
        // A new kind without a colormap: that kind's own (blue-orange for scores).
        ui::ScoreKind kind = ui::ScoreKind::Attention;
        ui::scoreKindFromId(QString::fromStdString(*a.show), kind);
        if (!a.colormap) o.view.colormap = nameOf(ui::kColormapNames, ui::defaultColormap(kind));
    }
    if (a.colormap) o.view.colormap = *a.colormap;
    if (a.colorRange) o.view.colorRange = *a.colorRange;
    if (a.average) o.view.averageOfHeads = true;
    o.headTitles = ui::headTitlesOf(session);
    return o;
}

// Qt without a display and without the user's environment: the offscreen platform, chosen on
// the command line of the application object (it wins over QT_QPA_PLATFORM). Messages Qt
// prints for itself (missing XDG_RUNTIME_DIR, ...) are not this command's to report.
void quietQtMessages(QtMsgType type, const QMessageLogContext&, const QString& message)
{
    if (type == QtCriticalMsg || type == QtFatalMsg)
        std::fprintf(stderr, "qkv-studio figure: Qt: %s\n", qPrintable(message));
}

// The patching figures' grids, as the Patching page makes them: the overview's sentence patched
// with `args.corrupt`, A and B from --answer and --wrong or each run's top-1 (core's refusals
// pass through). Kept where the figures read what the page last showed.
Status patchForFigures(const std::shared_ptr<const ModelOverview>& overview, const FigureArguments& args)
{
    Expected<ui::PatchingPrompts> prompts = ui::patchingPrompts(overview, QString::fromStdString(*args.corrupt));
    if (!prompts) return Error{"--corrupt: " + prompts.error()};
    const PretrainedModel& model = *prompts->model;
    Expected<PatchingReadouts> readouts = patchingReadouts(model, prompts->runs);
    if (!readouts) return Error{readouts.error()};
    Expected<std::int32_t> answer =
        args.answer ? singleTokenId(model, *args.answer, "answer") : Expected<std::int32_t>(prompts->cleanTop);
    if (!answer) return Error{"--answer: " + answer.error()};
    Expected<std::int32_t> wrong =
        args.wrong ? singleTokenId(model, *args.wrong, "wrong token") : Expected<std::int32_t>(prompts->corruptTop);
    if (!wrong) return Error{"--wrong: " + wrong.error()};
    Expected<PatchingGrids> grids = patchingGrids(model, *readouts, *answer, *wrong);
    if (!grids) return Error{grids.error()};
    ui::PatchingShown shown;
    shown.prompts = std::make_shared<const ui::PatchingPrompts>(std::move(*prompts));
    shown.grids = std::make_shared<const PatchingGrids>(std::move(*grids));
    ui::setShownPatching(std::move(shown));
    return {};
}

}  // namespace

int runFigureCommand(int argc, char** argv)
{
    for (int i = 2; i < argc; ++i) {
        if (std::string_view(argv[i]) == "--help" || std::string_view(argv[i]) == "-h") {
            std::fputs(figureUsage(), stdout);
            return 0;
        }
    }
    FigureArguments args;
    Session session;
    const ui::Figure* figure = nullptr;
    try {
        args = parseFigureArguments(argc, argv);
        if (args.list) {
            for (const ui::Figure& f : ui::allFigures()) std::printf("%s\n", qPrintable(f.name));
            return 0;
        }
        figure = ui::findFigure(QString::fromStdString(args.figure));
        if (!figure)
            throw ArgumentError{"--figure: '" + args.figure +
                                "' is not a figure (qkv-studio figure --list names them)"};
        session = sessionFromArguments(args);
    } catch (const ArgumentError& error) {
        return fail(2, error.message);
    } catch (const ReadError& error) {
        return fail(1, error.message);
    }
    // The window's rule: maps held up to limits::maxFullMapTokens, a longer layer streamed and kept
    // in blocks (the figures that draw it say so; the others say why not).
    const ComputeRequest request = prepareDrawnCompute(session.config, session.inputs(), limits::drawnPooledBlocks);
    if (const std::string problem = configurationProblem(session, request.issues); !problem.empty())
        return fail(2, problem);
    const Expected<std::shared_ptr<const Result>> result = compute(request);
    if (!result) return fail(1, result.error());

    ui::FigureInput input;
    input.result = *result;
    if (args.pinned) {
        // The compare figure's pinned result: another session, computed the same way.
        Expected<Session> pinned = readSession(*args.pinned);
        if (!pinned) return fail(1, pinned.error());
        Expected<std::shared_ptr<const Result>> pinnedResult = compute(pinned->config, pinned->inputs());
        if (!pinnedResult) return fail(1, *args.pinned + ": " + pinnedResult.error());
        input.pinned = *pinnedResult;
    }
    try {
        input.options = optionsFor(args, session, **result);
    } catch (const ArgumentError& error) {
        return fail(2, error.message);
    }

    // The Model and Predict figures draw the whole model behind the layer: run it, with the
    // session's heads switched off, when the figure cannot be drawn without it.
    if (!figure->whyUnavailable(input).isEmpty() && (*result)->wholeModel) {
        Expected<std::shared_ptr<const ModelOverview>> overview =
            wholeModelOverview((*result)->wholeModel, session, input.options.valueWeighted);
        if (!overview) return fail(2, overview.error());
        input.overview = std::move(*overview);
    }

    if (args.corrupt) {
        if (!input.overview) return fail(2, "--corrupt: the patching figures need a causal language model's layer");
        if (Status patched = patchForFigures(input.overview, args); !patched) return fail(2, patched.error());
    } else if (args.answer || args.wrong) {
        return fail(2, "--answer and --wrong: they measure a patching, which --corrupt TEXT asks for");
    }

    qInstallMessageHandler(&quietQtMessages);
    int qtArgc = 3;
    char program[] = "qkv-studio", platformOption[] = "-platform", offscreen[] = "offscreen";
    char* qtArgv[] = {program, platformOption, offscreen, nullptr};
    // A QApplication, not a QGuiApplication: the charts are Qt Charts, whose items are widgets
    // (QGraphicsTextItem) even in a scene without a view.
    const QApplication application(qtArgc, qtArgv);
    // Without fonts Qt draws every string as boxes and says nothing (docs/architecture.md, "Rules learned on this machine").
    if (QFontDatabase::families().isEmpty())
        return fail(1,
                    "no fonts are installed, text would be drawn as boxes: install fonts-dejavu-core "
                    "(scripts/install-dependencies.sh)");

    ui::FigureFormat format = ui::FigureFormat::Png;
    ui::figureFormatFromName(QString::fromStdString(args.format), format);
    const QString error = ui::writeFigure(*figure, input, QString::fromStdString(args.out), format,
                                          sizeFor(args, figure->defaultSizeFor(input)));
    if (!error.isEmpty()) return fail(1, error.toStdString());
    return 0;
}

}  // namespace qkv::app
