// Tokens that look like markup ("<s>", "<unk>", "&amp;") reach the screen as typed: every
// canvas tool tip is HTML whose data is escaped (ui/figures/shown_text.hpp).

#include <QRegularExpression>
#include <QTextDocument>

#include <algorithm>

#include "tests/ui/support/layer_test_support.hpp"
#include "ui/compare/compare_view.hpp"
#include "ui/figure_widgets/figure_canvas.hpp"
#include "ui/figures/shown_text.hpp"
#include "ui/heads/heads_canvas.hpp"
#include "ui/heads/heads_view.hpp"
#include "ui/matrices/matrices_view.hpp"
#include "ui/qkmap/qk_map_view.hpp"
#include "ui/steps/step_view.hpp"

namespace qkv::ui::testing {
namespace {

// A result whose token labels are what SentencePiece and file names can bring.
std::shared_ptr<const qkv::Result> resultWithMarkupTokens()
{
    auto computed = computeResult(crossConfig());
    if (!computed) return nullptr;
    auto result = std::make_shared<qkv::Result>(*computed);
    const std::vector<std::string> markup = {"<s>", "<b>cat</b>", "a&amp;b", "<unk>", "x<y", "</s>"};
    for (std::size_t i = 0; i < result->queryLabels.size(); ++i) result->queryLabels[i] = markup[i % markup.size()];
    for (std::size_t i = 0; i < result->keyLabels.size(); ++i) result->keyLabels[i] = markup[(i + 1) % markup.size()];
    return result;
}

// What a tool tip shows: its HTML read as Qt's tool tips read it.
QString shownText(const QString& toolTip)
{
    QTextDocument document;
    document.setHtml(richText(toolTip));
    return document.toPlainText();
}

// Every tip over a grid of the canvas; each token quoted in «» must be one of the labels as
// typed. Returns how many quoted tokens were checked.
template <class Canvas>
int expectTokensShownAsTyped(const Canvas& canvas, const qkv::Result& result)
{
    QStringList labels;
    for (const auto& l : result.queryLabels) labels << QString::fromStdString(l);
    for (const auto& l : result.keyLabels) labels << QString::fromStdString(l);
    static const QRegularExpression quoted(QStringLiteral("«([^»]*)»"));
    int checked = 0;
    for (int y = 0; y < canvas.height(); y += 12) {
        for (int x = 0; x < canvas.width(); x += 12) {
            const QString tip = canvas.toolTipAt(QPoint(x, y));
            if (tip.isEmpty()) continue;
            const QString shown = shownText(tip);
            for (auto it = quoted.globalMatch(shown); it.hasNext(); ++checked) {
                const QString token = it.next().captured(1);
                EXPECT_TRUE(labels.contains(token))
                    << "tip shows «" << token.toStdString() << "»: " << tip.toStdString();
                if (!labels.contains(token)) return checked;
            }
        }
    }
    return checked;
}

template <class View, class Canvas = FigureCanvas>
void expectViewShowsTokensAsTyped(View& view)
{
    const auto result = resultWithMarkupTokens();
    ASSERT_NE(result, nullptr);
    showAt(view, QSize(1300, 820));
    view.setResult(result);
    if constexpr (requires { view.isBusy(); }) waitUntilIdle(view);
    QCoreApplication::processEvents();
    const auto* canvas = view.template findChild<Canvas*>();
    ASSERT_NE(canvas, nullptr);
    EXPECT_GT(expectTokensShownAsTyped(*canvas, *result), 0) << "no tip named a token";
}

TEST(ShownText, MatricesToolTipsShowMarkupTokensAsTyped)
{
    MatricesView view(nullptr);
    expectViewShowsTokensAsTyped(view);
}

TEST(ShownText, QkMapToolTipsShowMarkupTokensAsTyped)
{
    QkMapView view(nullptr);
    expectViewShowsTokensAsTyped(view);
}

TEST(ShownText, CompareToolTipsShowMarkupTokensAsTyped)
{
    CompareView view(nullptr);
    view.setMode(CompareMode::HeadsMinusReference);
    expectViewShowsTokensAsTyped(view);
}

TEST(ShownText, StepToolTipsShowMarkupTokensAsTyped)
{
    StepView view(nullptr);
    expectViewShowsTokensAsTyped(view);
}

TEST(ShownText, HeadsToolTipsShowMarkupTokensAsTyped)
{
    HeadsView view(nullptr);
    expectViewShowsTokensAsTyped<HeadsView, HeadsCanvas>(view);
}

TEST(ShownText, PlainTextStaysPlainInRichText)
{
    EXPECT_EQ(shownText(plainAsRichText(QStringLiteral("<b>cat</b> & <s>\nnext"))),
              QStringLiteral("<b>cat</b> & <s>\nnext"));
}

}  // namespace
}  // namespace qkv::ui::testing
