/**
 * The MetaRoCE UDP datapath on Netty. It drives the sans-IO engine of {@code metaroce-core} from
 * real sockets: one socket per path source port, one event loop per endpoint.
 */
package io.metaroce.netty;
