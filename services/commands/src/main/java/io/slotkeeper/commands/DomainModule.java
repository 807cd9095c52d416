package io.slotkeeper.commands;

import io.slotkeeper.commands.projection.ProjectionSql;
import java.util.List;
import java.util.function.Function;
import org.axonframework.common.jdbc.ConnectionProvider;

/**
 * What a domain brings to the write side: its aggregates, its projections (built on the
 * projections' JDBC helper, each in the processing group its {@code @ProcessingGroup} names) and
 * its command interceptors (built on the connection of the command's transaction). The write model
 * knows no domain; the application lists the modules it runs.
 *
 * @param aggregates the aggregate classes (each routed by {@code Command.streamId()})
 * @param projections the projections, built once when the write model starts
 * @param interceptors the command interceptors, after the write side's own, in this order
 */
public record DomainModule(
    List<Class<?>> aggregates,
    Function<ProjectionSql, List<Object>> projections,
    Function<ConnectionProvider, List<CommandInterceptor>> interceptors) {

  public DomainModule {
    aggregates = List.copyOf(aggregates);
  }
}
