-- The command ledger names the class of each command's result (result_type) so that a duplicate
-- answers with the original result. The classes moved when the domain module was split into the
-- command machinery (io.slotkeeper.commands), the slot ledger (io.slotkeeper.slots) and the business
-- domain (io.slotkeeper.business.*); rows written before name them at their old place.
UPDATE command_ledger
   SET result_type =
       regexp_replace(
           regexp_replace(
               regexp_replace(result_type,
                   '^io\.slotkeeper\.domain\.slots\.', 'io.slotkeeper.slots.'),
               '^io\.slotkeeper\.domain\.(orders|inventory|fulfilment)\.', 'io.slotkeeper.business.\1.'),
           '^io\.slotkeeper\.domain\.command\.', 'io.slotkeeper.commands.')
 WHERE result_type LIKE 'io.slotkeeper.domain.%';
