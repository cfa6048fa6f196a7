import { lit, readerFunction, templateExpression } from '../code';
import { playCells, type TeacherStrategy } from './types';

/**
 * `multi_hop`: "In which city does the owner of the lamp live?". Two reads: llm() names the owner from the object's
 * sentences, then code greps the owner's sentences and llm() reads the city from them.
 */
export const MULTI_HOP_STRATEGIES: readonly TeacherStrategy[] = [
  {
    name: 'multi_hop.two_hops',
    type: 'multi_hop',
    robust: true,
    usesLlm: true,
    summary: "llm() reads the owner from the object's sentences, then the city from the owner's sentences",
    next: (view, style, obs) => {
      const { reader, value } = style;
      const first = `const ${value} = ${reader}(${lit(view.subquestions[0])}, ${lit(view.key)});`;
      const second = `answer(${reader}(${templateExpression(view.subquestions[1], [value])}, ${value}));`;
      // Looking first shows the owner in an observation before the second hop is read.
      const cells = style.look
        ? [`${readerFunction(style)}\n${first}\nprint(${value});`, second]
        : [`${readerFunction(style)}\n${first}\n${second}`];
      return playCells(cells, obs);
    },
  },
];
