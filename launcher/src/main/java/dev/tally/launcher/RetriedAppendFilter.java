package dev.tally.launcher;

import org.apache.kafka.common.errors.OutOfOrderSequenceException;
import org.apache.logging.log4j.core.Filter;
import org.apache.logging.log4j.core.LogEvent;
import org.apache.logging.log4j.core.config.Node;
import org.apache.logging.log4j.core.config.plugins.Plugin;
import org.apache.logging.log4j.core.config.plugins.PluginFactory;
import org.apache.logging.log4j.core.filter.AbstractFilter;

/**
 * Drops the embedded broker's ERROR for an append it refused with {@link OutOfOrderSequenceException}
 * (log4j2.xml, logger {@code kafka.server.ReplicaManager}). With transactions v2 a Streams producer pipelines
 * a new transaction's batches; when the first is refused with CONCURRENT_TRANSACTIONS (the previous
 * commit's markers are still being written) the ones behind it arrive with sequences the broker does not
 * expect yet, it logs each as an ERROR, and the producer sends them again in order. Nothing is lost or
 * written twice: a sequence error the producer cannot recover from is reported by the producer itself,
 * which Streams logs and acts on. Every other broker ERROR still reaches the console.
 */
@Plugin(name = "RetriedAppendFilter", category = Node.CATEGORY, elementType = Filter.ELEMENT_TYPE)
public final class RetriedAppendFilter extends AbstractFilter {
    private RetriedAppendFilter() {
        super(Result.DENY, Result.NEUTRAL);
    }

    @PluginFactory
    public static RetriedAppendFilter create() {
        return new RetriedAppendFilter();
    }

    @Override
    public Result filter(LogEvent event) {
        return event.getThrown() instanceof OutOfOrderSequenceException ? onMatch : onMismatch;
    }
}
