#pragma once
// Catches what a screen reader would be told: each event (its type, object, child and, for a
// focus event, the name and role of the interface it is about) while an AccessibilityEvents
// lives. QAccessible's update handler sees events only while QAccessible::isActive(), which the
// offscreen platform never is (no bridge), so the heatmaps' own events are also caught where
// ui/accessibility hands them to Qt (setAccessibleEventSpy).

#include <QAccessible>
#include <QString>

#include <vector>

#include "ui/accessibility/accessible_cell_table.hpp"

namespace qkv::ui::testing {

struct RecordedAccessibleEvent {
    QAccessible::Event type;
    QObject* object;
    int child;
    QString name;  // the name of event->accessibleInterface() when it was sent
    QAccessible::Role role = QAccessible::NoRole;
};

class AccessibilityEvents {
public:
    AccessibilityEvents()
    {
        // Qt sends no event while no screen reader listens (QAccessible::isActive()).
        wasActive_ = QAccessible::isActive();
        QAccessible::setActive(true);
        previous_ = QAccessible::installUpdateHandler(&AccessibilityEvents::record);
        if (!QAccessible::isActive()) setAccessibleEventSpy(&AccessibilityEvents::record);
    }
    ~AccessibilityEvents()
    {
        setAccessibleEventSpy(nullptr);
        QAccessible::installUpdateHandler(previous_);
        QAccessible::setActive(wasActive_);
        recorded().clear();
    }
    AccessibilityEvents(const AccessibilityEvents&) = delete;
    AccessibilityEvents& operator=(const AccessibilityEvents&) = delete;

    static std::vector<RecordedAccessibleEvent>& recorded()
    {
        static std::vector<RecordedAccessibleEvent> events;
        return events;
    }
    // The events of `type` about `object`.
    std::vector<RecordedAccessibleEvent> of(QAccessible::Event type, const QObject* object) const
    {
        std::vector<RecordedAccessibleEvent> found;
        for (const RecordedAccessibleEvent& event : recorded())
            if (event.type == type && event.object == object) found.push_back(event);
        return found;
    }

private:
    static void record(QAccessibleEvent* event)
    {
        RecordedAccessibleEvent recordedEvent{event->type(), event->object(), event->child(), {}};
        if (event->type() == QAccessible::Focus)
            if (QAccessibleInterface* about = event->accessibleInterface()) {
                recordedEvent.name = about->text(QAccessible::Name);
                recordedEvent.role = about->role();
            }
        recorded().push_back(recordedEvent);
    }
    QAccessible::UpdateHandler previous_ = nullptr;
    bool wasActive_ = false;
};

}  // namespace qkv::ui::testing
