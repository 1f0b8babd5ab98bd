#include "ui/guide/guide_state.hpp"

#include <QLineEdit>

#include <algorithm>

#include "core/pipeline/pretrained_run.hpp"

#include "ui/document/document.hpp"
#include "ui/document/examples.hpp"
#include "ui/document/head_selection.hpp"
#include "ui/guide/circuits_text.hpp"
#include "ui/guide/guide_steps.hpp"
#include "ui/guide/learned_heads_text.hpp"
#include "ui/guide/patching_text.hpp"
#include "ui/mainwindow/document_files.hpp"
#include "ui/mainwindow/main_window.hpp"
#include "ui/mainwindow/view_tabs.hpp"
#include "ui/patching/patching_panel.hpp"
#include "ui/views/result_view.hpp"
#include "ui/wholemodel/whole_model_runs.hpp"

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

void GuideStateSetter::dropPending()
{
    disconnect(pending_);
    for (const QMetaObject::Connection& wait : waits_) disconnect(wait);
    waits_.clear();
}

void GuideStateSetter::apply(const GuideState& state)
{
    dropPending();
    modelProblem_.clear();
    chosenHead_.reset();
    sentenceTyped_ = false;
    patchRequested_ = false;
    if (state.model != GuideModel::None) {
        applyModel(state);
        return;
    }
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

void GuideStateSetter::applyModel(const GuideState& state)
{
    if (window_->holdsDemoModel()) {
        showModel(state);
        return;
    }
    waits_.push_back(connect(window_, &MainWindow::checkpointLayerLoaded, this, [this, state](const QString& error) {
        dropPending();
        if (error.isEmpty()) {
            showModel(state);
            return;
        }
        modelProblem_ = tr("the demo model could not be opened: %1").arg(error);
        emit reached();
    }));
    // The one question every open asks; a No leaves the document as it is and says so.
    if (!window_->openDemoModel()) {
        dropPending();
        modelProblem_ = tr("the demo model was not opened. Press Back then Next to open it");
        emit reached();
    }
}

void GuideStateSetter::showModel(const GuideState& state)
{
    if (ResultView* view = window_->tabs()->view(state.tab)) window_->tabs()->setCurrentWidget(view);
    WholeModelRuns* runs = window_->tabs()->wholeModelRuns();
    // Each signal that may complete the state looks again: the layer's result (the runs then
    // start), each overview, and the end of a run.
    const auto check = [this, state, runs] {
        if (window_->document()->isBusy()) return;
        if (!runs->isBusy() && !runs->problem().isEmpty()) {  // a sentence the model refuses, ...
            modelProblem_ = runs->problem();
            dropPending();
            emit reached();
            return;
        }
        const auto result = window_->document()->result();
        const auto overview = runs->overview();
        if (!result || !result->wholeModel || runs->isBusy() || !overview || overview->model != result->wholeModel)
            return;
        // The heads to switch off are found on a run with every head on (the roles are of the
        // run shown): that run first, then the one with them off.
        const std::set<qkv::ModelHead>& off = overview->ablatedHeads();
        if (state.headsOff == GuideHeadsOff::StrongestInduction && !chosenHead_) {
            if (!off.empty()) {
                if (!runs->headsOff().empty()) runs->setHeadsOff({});
                return;
            }
            chosenHead_ = strongestInductionHead(*overview);
            if (!chosenHead_) modelProblem_ = tr("no head is an induction head on these tokens");
        }
        if (!sentenceShown(state)) return;
        std::set<qkv::ModelHead> wanted;
        if (state.headsOff == GuideHeadsOff::StrongestInduction && chosenHead_) wanted.insert(*chosenHead_);
        if (off != wanted) {
            if (runs->headsOff() != wanted) runs->setHeadsOff(wanted);
            return;
        }
        if (!patchingShown(state)) return;
        dropPending();
        select(state);
    };
    waits_.push_back(connect(window_->document(), &Document::resultChanged, this, check));
    if (auto* patching = window_->findChild<PatchingPanel*>())
        waits_.push_back(connect(patching, &PatchingPanel::runEnded, this, check));
    waits_.push_back(connect(runs, &WholeModelRuns::overviewChanged, this, check));
    waits_.push_back(connect(runs, &WholeModelRuns::busyChanged, this, check));
    runs->demand();
    check();
}

bool GuideStateSetter::sentenceShown(const GuideState& state)
{
    if (state.sentence.isEmpty()) return true;
    const std::string wanted = state.sentence.toStdString();
    if (window_->document()->config().targetText != wanted) {
        if (sentenceTyped_) return false;  // typed: its result is on its way
        sentenceTyped_ = true;
        qkv::Config config = window_->document()->config();
        config.targetText = wanted;
        window_->document()->edit(config, tr("Guide: the sentence “%1”").arg(state.sentence));
        return false;
    }
    // The overview shown must be of this sentence (a run of the previous one may end first).
    const auto overview = window_->tabs()->wholeModelRuns()->overview();
    qkv::Expected<qkv::ModelSentences> cut = qkv::modelSentences(*overview->model, std::string(), wanted);
    return cut && cut->tokens.ids == overview->sentences.tokens.ids;
}

bool GuideStateSetter::patchingShown(const GuideState& state)
{
    if (state.corrupted.isEmpty()) return true;
    auto* patching = window_->findChild<PatchingPanel*>();
    const auto overview = window_->tabs()->wholeModelRuns()->overview();
    // The Predict tab hands its pages the overview when it shows it.
    if (!patching || patching->overview() != overview) return false;
    if (!patchRequested_ || patching->corruptEdit()->text() != state.corrupted) {
        patchRequested_ = true;
        patching->setCorruptText(state.corrupted);
        return false;
    }
    if (patching->isRunning()) return false;
    if (!patching->grids() && !patching->problem().isEmpty()) modelProblem_ = patching->problem();
    return true;
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
    if (state.model == GuideModel::Demo) {
        if (!modelProblem_.isEmpty()) return modelProblem_.toHtmlEscaped() + QLatin1Char('.');
        parts << tr("the demo model, layer 1");
    }
    if (const ResultView* view = window_->tabs()->view(state.tab))
        parts << tr("tab <i>%1</i>").arg(tabTitle(*view).toHtmlEscaped());
    parts << tr("head %1").arg(window_->selection()->head() + 1);
    if (const auto result = window_->document()->result()) {
        const auto query = static_cast<std::size_t>(window_->selection()->queryRow());
        if (query < result->queryLabels.size())
            parts << tr("query «%1»").arg(QString::fromStdString(result->queryLabels[query]).toHtmlEscaped());
    }
    QString line = parts.join(QStringLiteral(" · "));
    if (state.model != GuideModel::None)
        if (const auto overview = window_->tabs()->wholeModelRuns()->overview()) {
            const QString measured = state.headsOff != GuideHeadsOff::None     ? switchedOffText(*overview)
                                     : state.measure == GuideMeasure::Circuits ? circuitsText(*overview)
                                     : state.measure == GuideMeasure::Patching ? patchingText(*window_)
                                                                               : learnedRolesText(*overview);
            if (!measured.isEmpty())
                line += QStringLiteral("<br>") + tr("Measured now: %1").arg(measured.toHtmlEscaped());
        }
    return line;
}

}  // namespace qkv::ui
