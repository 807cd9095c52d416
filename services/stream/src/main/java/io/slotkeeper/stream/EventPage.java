package io.slotkeeper.stream;

import java.util.List;

/**
 * A page of events after a position.
 *
 * @param events the events of the page that match the filter, in position order
 * @param next the position to ask after next time: every event up to it has been considered
 *     (returned or filtered out); positions above it may still fill in
 */
public record EventPage(List<StreamEvent> events, long next) {}
