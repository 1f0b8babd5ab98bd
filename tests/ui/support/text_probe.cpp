#include "tests/ui/support/text_probe.hpp"

#include <QPaintEngine>
#include <QPainter>
#include <QTextItem>

#include <algorithm>

namespace qkv::ui::testing {
namespace {

// Claims every feature, so QPainter hands it text items with their transform (rather than
// turning rotated text into paths) and keeps clipping for it to read.
class ProbeEngine : public QPaintEngine {
public:
    ProbeEngine() : QPaintEngine(QPaintEngine::AllFeatures) {}

    bool begin(QPaintDevice*) override { return true; }
    bool end() override { return true; }
    void updateState(const QPaintEngineState&) override {}
    void drawPixmap(const QRectF&, const QPixmap&, const QRectF&) override {}
    void drawImage(const QRectF&, const QImage&, const QRectF&, Qt::ImageConversionFlags) override {}
    void drawPath(const QPainterPath&) override {}
    void drawPolygon(const QPointF*, int, PolygonDrawMode) override {}
    void drawRects(const QRectF*, int) override {}
    void drawLines(const QLineF*, int) override {}
    void drawEllipse(const QRectF&) override {}
    void drawTextItem(const QPointF& p, const QTextItem& item) override
    {
        const QString text = item.text();
        if (text.trimmed().isEmpty()) return;
        const QRectF local(p.x(), p.y() - item.ascent(), item.width(), item.ascent() + item.descent());
        QPainter* painter = this->painter();
        bool clipped = false;
        if (painter->hasClipping()) {
            const QRectF clip = painter->clipBoundingRect();
            clipped = !clip.adjusted(-1, -1, 1, 1).contains(local);
        }
        texts.push_back({text, painter->deviceTransform().mapRect(local), clipped});
    }
    Type type() const override { return QPaintEngine::User; }

    std::vector<DrawnText> texts;
};

}  // namespace

TextProbe::TextProbe(QSize size) : size_(size), engine_(std::make_unique<ProbeEngine>()) {}

TextProbe::~TextProbe() = default;

QPaintEngine* TextProbe::paintEngine() const { return engine_.get(); }

const std::vector<DrawnText>& TextProbe::texts() const { return static_cast<ProbeEngine*>(engine_.get())->texts; }

int TextProbe::metric(PaintDeviceMetric metric) const
{
    switch (metric) {
    case PdmWidth: return size_.width();
    case PdmHeight: return size_.height();
    case PdmWidthMM: return size_.width() * 254 / 960;
    case PdmHeightMM: return size_.height() * 254 / 960;
    case PdmNumColors: return 0x7fffffff;
    case PdmDepth: return 32;
    case PdmDpiX:
    case PdmDpiY:
    case PdmPhysicalDpiX:
    case PdmPhysicalDpiY: return 96;
    case PdmDevicePixelRatio: return 1;
    case PdmDevicePixelRatioScaled: return static_cast<int>(QPaintDevice::devicePixelRatioFScale());
    }
    return 0;
}

QStringList TextProbe::strings() const
{
    QStringList out;
    for (const DrawnText& t : texts()) out << t.text;
    return out;
}

QStringList TextProbe::problems() const { return problems({}); }

QStringList TextProbe::problems(const std::vector<QRectF>& ignore) const
{
    QStringList out;
    const QRectF device = QRectF(QPointF(0, 0), QSizeF(size_)).adjusted(-1, -1, 1, 1);
    for (const DrawnText& t : texts()) {
        if (std::any_of(ignore.begin(), ignore.end(), [&](const QRectF& r) { return r.intersects(t.bounds); })) continue;
        const QString where = QStringLiteral("(%1, %2, %3 x %4)")
                                  .arg(t.bounds.x(), 0, 'f', 0)
                                  .arg(t.bounds.y(), 0, 'f', 0)
                                  .arg(t.bounds.width(), 0, 'f', 0)
                                  .arg(t.bounds.height(), 0, 'f', 0);
        if (t.clipped) out << QStringLiteral("'%1' clipped %2").arg(t.text, where);
        else if (!device.contains(t.bounds)) out << QStringLiteral("'%1' outside %2").arg(t.text, where);
        else if (t.text.endsWith(QChar(0x2026)))  // Qt's ElideRight
            out << QStringLiteral("'%1' elided %2").arg(t.text, where);
    }
    return out;
}

bool TextProbe::shows(const QString& text) const
{
    // Word-wrapped text arrives line by line: compare with all lines joined.
    return strings().join(QLatin1Char(' ')).simplified().contains(text.simplified());
}

}  // namespace qkv::ui::testing
