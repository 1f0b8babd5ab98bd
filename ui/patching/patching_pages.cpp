#include "ui/patching/patching_pages.hpp"

#include <QTabWidget>

#include "ui/patching/logit_lens_panel.hpp"
#include "ui/patching/patching_panel.hpp"
#include "ui/predict/prediction_view.hpp"

namespace qkv::ui {

PatchingPages addPatchingPages(PredictionView* view)
{
    PatchingPages pages;
    QTabWidget* tabs = view->pages();
    pages.patching = new PatchingPanel(tabs);
    pages.logitLens = new LogitLensPanel(tabs);
    const int patching = tabs->addTab(pages.patching, QObject::tr("Patching"));
    tabs->setTabToolTip(patching, QObject::tr("Activation patching: which heads and which positions carry the answer "
                                              "from a clean prompt into a corrupted one"));
    const int lens = tabs->addTab(pages.logitLens, QObject::tr("Logit lens"));
    tabs->setTabToolTip(lens, QObject::tr("What the model would predict if it stopped after each layer"));
    const auto follow = [view, pages] {
        pages.patching->setOverview(view->overview());
        pages.logitLens->setOverview(view->overview());
    };
    QObject::connect(view, &PredictionView::overviewShown, pages.patching, follow);
    QObject::connect(pages.patching, &PatchingPanel::gridsShown, pages.logitLens, &LogitLensPanel::setAnswer);
    follow();
    return pages;
}

}  // namespace qkv::ui
