#include "ui/guide/guide_state.hpp"

#include <algorithm>

#include "ui/document/document.hpp"
#include "ui/document/examples.hpp"
#include "ui/document/head_selection.hpp"
#include "ui/guide/guide_steps.hpp"
#include "ui/mainwindow/document_files.hpp"
#include "ui/mainwindow/main_window.hpp"
#include "ui/mainwindow/view_tabs.hpp"
#include "ui/views/result_view.hpp"

namespace qkv::ui {
namespace {

bool generated(const qkv::Session& session)
{
    return !session.weights && !session.sourceEmbeddings && !session.targetEmbeddings && !session.modelInput;
}

int clampIndex(int value, qkv::Index count) { return std::clamp(value, 0, std::max(static_cast<int>(count) - 1, 0)); }

QString tabTitle(const ResultView& view) { return view.title().remove(QLatin1Char('&')); }

}  // namespace

const Example* exampleById(const QString& id)
{
    const auto& all = examples();
    const auto found = std::find_if(all.begin(), all.end(), [&](const Example& e) { return e.id == id; });
    return found == all.end() ? nullptr : &*found;
}

GuideStateSetter::GuideStateSetter(MainWindow* window) : QObject(window), window_(window) {}

bool GuideStateSetter::holdsExample(const Example& example) const
{
    const auto session = readExample(example);
    const qkv::Session& current = window_->document()->session();
    return session && generated(*session) && generated(current) && current.config == session->config;
}

void GuideStateSetter::apply(const GuideState& state)
{
    disconnect(pending_);
    const Example* example = exampleById(state.example);
    if (example && !holdsExample(*example)) window_->files()->applyScenario(*example);
    if (ResultView* view = window_->tabs()->view(state.tab)) window_->tabs()->setCurrentWidget(view);
    // The views show the previous result until the scenario's arrives: a head or token of the
    // new one could lie outside it.
    if (!window_->document()->isBusy()) {
        select(state);
        return;
    }
    pending_ = connect(window_->document(), &Document::resultChanged, this, [this, state] {
        disconnect(pending_);
        select(state);
    });
}

void GuideStateSetter::select(const GuideState& state)
{
    HeadSelection* selection = window_->selection();
    if (const auto result = window_->document()->result()) {
        const qkv::AttentionResult& a = result->attention;
        selection->setHead(clampIndex(state.head, a.headCount()));
        selection->setCell(clampIndex(state.query, a.queryCount()), clampIndex(state.key, a.keyCount()));
    }
    emit reached();
}

QString GuideStateSetter::describe(const GuideState& state) const
{
    QStringList parts;
    if (const Example* example = exampleById(state.example))
        parts << tr("example <i>%1</i>").arg(example->title.toHtmlEscaped());
    if (const ResultView* view = window_->tabs()->view(state.tab))
        parts << tr("tab <i>%1</i>").arg(tabTitle(*view).toHtmlEscaped());
    parts << tr("head %1").arg(window_->selection()->head() + 1);
    if (const auto result = window_->document()->result()) {
        const auto query = static_cast<std::size_t>(window_->selection()->queryRow());
        if (query < result->queryLabels.size())
            parts << tr("query «%1»").arg(QString::fromStdString(result->queryLabels[query]).toHtmlEscaped());
    }
    return parts.join(QStringLiteral(" · "));
}

}  // namespace qkv::ui
