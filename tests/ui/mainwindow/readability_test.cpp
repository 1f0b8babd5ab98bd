// Every tab is readable at 1000 x 700: the labels that matter are whole
// (not elided, not clipped, not squeezed below their size), the figures' titles, axis titles,
// colour bars and legend names are drawn in full. Rendered onto a probe that records text.

#include <QAbstractButton>
#include <QAbstractItemView>
#include <QComboBox>
#include <QLabel>
#include <QPainter>
#include <QScrollArea>
#include <QSignalSpy>
#include <QTabBar>

#include "tests/ui/support/text_probe.hpp"
#include "tests/ui/support/window_fixture.hpp"
#include "ui/costs/cost_figures.hpp"
#include "ui/costs/costs_view.hpp"
#include "ui/factored/factor_product_widget.hpp"
#include "ui/factored/factored_figures.hpp"
#include "ui/factored/factored_view.hpp"
#include "ui/figure_widgets/chart_view.hpp"
#include "ui/figure_widgets/figure_canvas.hpp"
#include "ui/figures/figure_text.hpp"
#include "ui/heads/heads_canvas.hpp"
#include "ui/heads/heads_view.hpp"
#include "ui/mainwindow/document_files.hpp"
#include "ui/mainwindow/notice_bar.hpp"
#include "ui/mainwindow/stale_notice.hpp"
#include "ui/mainwindow/view_tabs.hpp"
#include "ui/matrices/matrices_view.hpp"
#include "ui/steps/step_view.hpp"
#include "ui/wholemodel/whole_model_runs.hpp"

using qkv::ui::testing::TextProbe;
using qkv::ui::testing::WindowTest;

namespace qkv::ui {
namespace {

class Readability : public WindowTest {
protected:
    void SetUp() override
    {
        WindowTest::SetUp();
        window->resize(1000, 700);
        settle();
        QCoreApplication::processEvents();
    }

    void show(QWidget* view)
    {
        window->tabs()->setCurrentWidget(view);
        settle();
        QCoreApplication::processEvents();
    }

    // What `widget` draws, as it is now.
    static std::unique_ptr<TextProbe> probe(QWidget* widget)
    {
        auto device = std::make_unique<TextProbe>(widget->size());
        widget->render(device.get(), QPoint(), QRegion(), QWidget::DrawChildren);
        return device;
    }

    // Labels, buttons and combo boxes outside scroll areas are at least their minimum size
    // (else their text is cut), and every scroll area's contents draws its text whole.
    void expectReadable(QWidget* view)
    {
        ASSERT_GE(window->width(), 1000);
        // A label whose text changed in the last processed events (the Costs tab's timing note
        // when its background measurement ends) is laid out by a posted LayoutRequest: apply it,
        // as the next frame would, before measuring.
        for (int pass = 0; pass < 3; ++pass)
            QCoreApplication::sendPostedEvents(nullptr, QEvent::LayoutRequest);  // nested layouts
        for (QWidget* w : view->findChildren<QWidget*>()) {
            if (!w->isVisibleTo(view) || w->width() <= 0) continue;
            const bool text =
                qobject_cast<QLabel*>(w) || qobject_cast<QAbstractButton*>(w) || qobject_cast<QComboBox*>(w);
            if (!text) continue;
            const auto* label = qobject_cast<QLabel*>(w);
            if (label && label->wordWrap()) {
                EXPECT_GE(w->height(), label->heightForWidth(w->width()) - 1) << label->text().toStdString();
                continue;
            }
            EXPECT_GE(w->width(), w->minimumSizeHint().width())
                << w->metaObject()->className() << " " << (label ? label->text().toStdString() : std::string());
        }
        for (QScrollArea* scroll : view->findChildren<QScrollArea*>()) {
            if (!scroll->widget() || !scroll->isVisibleTo(view)) continue;
            const auto device = probe(scroll->widget());
            // The cost table's cells elide by design: their full text is in tooltips and the copy.
            std::vector<QRectF> tables;
            for (QAbstractItemView* table : scroll->widget()->findChildren<QAbstractItemView*>())
                tables.emplace_back(QRectF(table->mapTo(scroll->widget(), QPoint(0, 0)), QSizeF(table->size())));
            EXPECT_EQ(device->problems(tables).join(QLatin1Char('\n')).toStdString(), "")
                << scroll->widget()->metaObject()->className();
        }
    }
};

TEST_F(Readability, TabTitlesAreWhole)
{
    QTabBar* bar = window->tabs()->tabBar();
    for (int i = 0; i < bar->count(); ++i) {
        const QString text = bar->tabText(i).remove(QLatin1Char('&'));
        EXPECT_GE(bar->tabRect(i).width(), bar->fontMetrics().horizontalAdvance(text)) << text.toStdString();
    }
}

TEST_F(Readability, HeadsTab)
{
    HeadsView* view = window->headsView();
    show(view);
    expectReadable(view);
    const auto device = probe(view->canvas());
    EXPECT_EQ(device->problems().join(QLatin1Char('\n')).toStdString(), "");
    const qkv::AttentionMode mode = window->document()->result()->config.mode;
    EXPECT_TRUE(device->shows(queryAxisTitle(mode)));
    EXPECT_TRUE(device->shows(keyAxisTitle(mode)));
    EXPECT_TRUE(device->shows(view->canvas()->figure()->legendLabel())) << device->strings().join(" | ").toStdString();
    EXPECT_TRUE(device->shows(view->canvas()->figure()->caption()));
    for (int h = 1; h <= 4; ++h) EXPECT_TRUE(device->shows(QStringLiteral("Head %1").arg(h)));
}

// At 1000 x 700 the matrices' columns are narrow: their names and formulas are drawn whole,
// made smaller, never elided ("row soft…", "A_2 V…").
TEST_F(Readability, MatricesTab)
{
    auto* view = qobject_cast<MatricesView*>(window->tabs()->view(MatricesView::kId));
    ASSERT_NE(view, nullptr);
    show(view);
    expectReadable(view);
    const auto device = probe(view->canvas());
    EXPECT_EQ(device->problems().join(QLatin1Char('\n')).toStdString(), "");
    for (const char* text : {"row softmax", "A_1 V_1", "head_1 … head_h", "input of K and V"})
        EXPECT_TRUE(device->shows(QString::fromUtf8(text))) << text << " in: " << device->strings().join(" | ").toStdString();
    const qkv::AttentionMode mode = window->document()->result()->config.mode;
    EXPECT_TRUE(device->shows(keyAxisTitle(mode)));
}

TEST_F(Readability, StepTab)
{
    show(window->stepView());
    expectReadable(window->stepView());
}

TEST_F(Readability, FactoredTab)
{
    FactoredView* view = window->tabs()->factoredView();
    show(view);
    view->ensureCurrent();
    QCoreApplication::processEvents();
    expectReadable(view);
    QScrollArea* scroll = view->findChild<QScrollArea*>();
    ASSERT_NE(scroll, nullptr);
    const auto device = probe(scroll->widget());
    EXPECT_TRUE(device->shows(QStringLiteral("Fused layout: one W^Q")));
    EXPECT_TRUE(device->shows(QStringLiteral("Singular values of W_i")));
    // Greek letters may come from a fallback font, which splits a line into several drawn runs.
    EXPECT_TRUE(device->strings().join(QString()).contains(QStringLiteral("rank tolerance σ_max · d_model · ε")))
        << device->strings().join(QStringLiteral(" | ")).toStdString();
    // The factor product's three colour bars have room: each at least a third of W_i's side and
    // taller than wide (a short box turns a colour bar horizontal, and its ticks run into each
    // other).
    const FactorProductGeometry g = view->factorProduct()->geometry();
    for (const QRectF& legend : {g.queryFactorLegend, g.keyFactorLegend, g.productLegend}) {
        EXPECT_GE(legend.height(), g.product.height() / 3);
        EXPECT_GT(legend.height(), legend.width());
    }
    EXPECT_FALSE(g.queryFactorLegend.intersects(g.keyFactorLegend));
    EXPECT_FALSE(g.keyFactorLegend.intersects(g.productLegend));
}

TEST_F(Readability, ComparisonTab)
{
    CostsView* view = window->tabs()->costsView();
    show(view);
    expectReadable(view);
    for (ChartView* chart : view->findChildren<ChartView*>()) {
        const auto device = probe(chart);
        EXPECT_EQ(device->problems().join(QLatin1Char('\n')).toStdString(), "") << chart->model().title.toStdString();
        for (const ChartSeries& s : chart->model().series) {
            if (!s.inLegend) continue;
            EXPECT_TRUE(device->shows(s.name)) << s.name.toStdString();
        }
        EXPECT_GE(chart->width(), chart->minimumSizeHint().width());
        EXPECT_GE(chart->height(), chart->minimumSizeHint().height());
    }
}

// A projector's 1000 x 700 window keeps its size when a scenario's note and the amber "Not
// updated" strip show above the views together: they take room from the views, never grow the window.
TEST_F(WindowTest, TheNoticeAndTheStaleStripNeverGrowTheWindow)
{
    window->resize(1000, 700);
    settle();
    qkv::Config invalid = window->document()->config();
    invalid.headCount = invalid.d_model + 1;  // h does not divide d_model
    window->document()->edit(invalid, QStringLiteral("invalid h"));
    settle();
    ASSERT_TRUE(window->staleNotice()->isVisible());
    // A message too long for the status bar's line, as a scenario's is, shows whole above the views.
    emit window->files()->statusMessage(QStringLiteral("Scenario: Cross-attention, word by word. ") +
                                        QString(QStringLiteral("The target sentence gives the queries; the source the keys and values. ")).repeated(4) +
                                        QStringLiteral("Undo goes back."));
    NoticeBar* notice = window->findChild<NoticeBar*>();
    ASSERT_NE(notice, nullptr);
    EXPECT_TRUE(notice->isVisible());
    QCoreApplication::processEvents();
    EXPECT_EQ(window->size(), QSize(1000, 700));
}

// The demo model at 1000 x 700 under its long notice: every tab, the Model and Predict tabs with
// their whole-model panels and the Train tab too, fits the window; none makes it grow by itself.
TEST_F(WindowTest, EveryTabOfAModelFitsA1000x700WindowUnderItsNotice)
{
    window->resize(1000, 700);
    settle();
    QSignalSpy loaded(window.get(), &MainWindow::checkpointLayerLoaded);
    ASSERT_TRUE(window->openDemoModel());
    ASSERT_TRUE(loaded.wait(20000));
    settle();
    ASSERT_TRUE(window->noticeBar()->isVisible()) << "the layer's notes";
    ViewTabs* tabs = window->tabs();
    WholeModelRuns* runs = tabs->wholeModelRuns();
    for (int i = 0; i < tabs->count(); ++i) {
        tabs->setCurrentIndex(i);
        settle();
        // The whole model's panels fill in once its run is back.
        ASSERT_TRUE(QTest::qWaitFor([runs] { return !runs->isBusy(); }, 20000));
        QTest::qWait(30);
        settle();
        EXPECT_EQ(window->size(), QSize(1000, 700)) << tabs->tabText(i).toStdString();
        // With a fifth of its height to spare: other fonts (the offscreen platform's are not a
        // desktop's) or a taller notice must not push the window either.
        EXPECT_LE(tabs->widget(i)->minimumSizeHint().height(), tabs->widget(i)->height() * 4 / 5)
            << tabs->tabText(i).toStdString();
        window->resize(1000, 700);
    }
}

}  // namespace
}  // namespace qkv::ui
